"""What both vector store engines share (rag/store.py: qdrant-client, rag/edge_store.py:
Qdrant Edge): points, hits, payload filters, errors and the searches/writes lock."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Sequence

from qdrant_client import models

from rag.sparse import SparseVector

DENSE = "dense"
SPARSE = "bm25"


class VectorStoreError(RuntimeError):
    pass


@dataclass
class Point:
    id: str
    dense: Sequence[float]
    sparse: SparseVector
    payload: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    id: str
    score: float
    payload: dict
    collection: str = ""


Filter = dict[str, Any] | models.Filter | None


def build_filter(spec: Filter) -> models.Filter | None:
    """{"field": value | [values], "!field": value} → a Qdrant filter (`!` negates)."""
    if spec is None or isinstance(spec, models.Filter):
        return spec
    must, must_not = [], []
    for key, value in spec.items():
        target = must_not if key.startswith("!") else must
        key = key.lstrip("!")
        if isinstance(value, (list, tuple, set)):
            condition = models.FieldCondition(key=key, match=models.MatchAny(any=list(value)))
        else:
            condition = models.FieldCondition(key=key, match=models.MatchValue(value=value))
        target.append(condition)
    return models.Filter(must=must or None, must_not=must_not or None)


class ReadWriteLock:
    """Many concurrent searches, one writer: local mode's in-process arrays are resized
    on upsert, and a search must not see them half-way."""

    def __init__(self):
        self._readers = 0
        self._cond = threading.Condition(threading.Lock())

    @contextmanager
    def reading(self):
        with self._cond:
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def writing(self):
        with self._cond:
            while self._readers:
                self._cond.wait()
            yield
