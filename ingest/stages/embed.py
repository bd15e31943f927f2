"""Step 7: dense vectors in batches (INGEST_EMBED_BATCH) and BM25 sparse vectors, both
from the context-prefixed text."""

from __future__ import annotations

from typing import Callable

import numpy as np

from rag.embeddings import passage_text
from rag.sparse import SparseVector, document_vector

from .chunk import ChunkDraft


def embed_drafts(
    drafts: list[ChunkDraft],
    embedder,
    *,
    batch_size: int = 32,
    on_progress: Callable[[int, int], None] = lambda done, total: None,
) -> tuple[np.ndarray, list[SparseVector]]:
    texts = [passage_text(d.text, d.context) for d in drafts]
    batches = []
    for start in range(0, len(texts), batch_size):
        batches.append(embedder.embed_passages(texts[start : start + batch_size]))
        on_progress(min(start + batch_size, len(texts)), len(texts))
    dense = np.vstack(batches) if batches else np.zeros((0, embedder.dim), dtype=np.float32)
    return dense, [document_vector(text) for text in texts]
