"""Step 7: dense vectors in batches (INGEST_EMBED_BATCH) and BM25 sparse vectors, both
from the context-prefixed text.

Only what needs it is embedded: a text met twice (repeated boilerplate, a rule quoted in
two places) is embedded once, and a text in the booklet's embedding cache not at all. The
thread count is chosen before every batch (`rag.busy.ThreadPlan`): every core while nobody
asks, one the moment a question is being answered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from rag.busy import ThreadPlan
from rag.embeddings import passage_text
from rag.sparse import SparseVector, document_vector

from .chunk import ChunkDraft
from .embed_cache import EmbeddingCache


@dataclass
class EmbedStats:
    embedded: int = 0  # distinct texts sent to the embedder
    duplicates: int = 0  # chunks whose text another chunk already has
    from_cache: int = 0  # distinct texts found in the cache
    threads: list[int] = field(default_factory=list)  # per batch

    def as_dict(self) -> dict:
        return {"embedded": self.embedded, "duplicates": self.duplicates, "from_cache": self.from_cache,
                "threads_max": max(self.threads, default=0), "threads_min": min(self.threads, default=0)}


def embed_drafts(
    drafts: list[ChunkDraft],
    embedder,
    *,
    batch_size: int = 32,
    on_progress: Callable[[int, int], None] = lambda done, total: None,
    cache: EmbeddingCache | None = None,
    plan: ThreadPlan | None = None,
    stats: EmbedStats | None = None,
) -> tuple[np.ndarray, list[SparseVector]]:
    stats = stats if stats is not None else EmbedStats()
    texts = [passage_text(d.text, d.context) for d in drafts]  # the text games.indexing re-embeds
    distinct = list(dict.fromkeys(texts))
    stats.duplicates = len(texts) - len(distinct)
    vectors = _cached_vectors(distinct, cache)
    stats.from_cache = len(vectors)
    todo = [t for t in distinct if t not in vectors]
    on_progress(len(distinct) - len(todo), len(distinct))
    for start in range(0, len(todo), batch_size):
        batch = todo[start : start + batch_size]
        matrix = _embed_batch(embedder, batch, plan, stats)
        vectors.update(zip(batch, matrix))
        if cache is not None:
            cache.put_many(batch, matrix)  # saved per batch: a restart resumes here
        on_progress(len(distinct) - len(todo) + start + len(batch), len(distinct))
    stats.embedded = len(todo)
    dense = np.vstack([vectors[t] for t in texts]) if texts else np.zeros((0, embedder.dim), dtype=np.float32)
    sparse_of = {text: document_vector(text) for text in distinct}
    return dense.astype(np.float32), [sparse_of[text] for text in texts]


def _cached_vectors(texts: list[str], cache: EmbeddingCache | None) -> dict[str, np.ndarray]:
    if cache is None:
        return {}
    found = {text: cache.get(text) for text in texts}
    return {text: vector for text, vector in found.items() if vector is not None}


def _embed_batch(embedder, batch: list[str], plan: ThreadPlan | None, stats: EmbedStats) -> np.ndarray:
    if plan is None or not getattr(embedder, "supports_threads", False):
        return embedder.embed_passages(batch)
    threads = plan.threads()  # asked again before every batch: a question may have arrived
    stats.threads.append(threads)
    return embedder.embed_passages(batch, threads=threads)
