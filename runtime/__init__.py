"""Process-wide services below the apps and above rag: the shared components (embedder,
vector store, LLM), the periodic runner, the rate limiter. It may read Django settings;
it imports no app (docs/architecture.md)."""
