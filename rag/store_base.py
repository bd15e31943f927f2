"""What both vector store engines share (rag/client_store.py: qdrant-client, rag/edge_store.py:
Qdrant Edge): their interface, points, hits, payload filters, errors and the searches/writes
lock. Nothing here imports qdrant-client: importing it costs ~0.9 s of pydantic schema
building, which every process start paid (daphne, the worker, each `manage.py` command) even
on the embedded default that never uses it."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol, Sequence

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


# A payload filter: {"field": value | [values], "!field": value | [values]}, every entry
# required ("!": excluded); a list matches any of its values. Each engine translates it.
Filter = dict[str, Any] | None


def filter_conditions(spec: Filter) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """The (field, value or list of values) pairs a filter requires, then those it excludes."""
    must, must_not = [], []
    for key, value in (spec or {}).items():
        target = must_not if key.startswith("!") else must
        target.append((key.lstrip("!"), list(value) if isinstance(value, (list, tuple, set)) else value))
    return must, must_not


class VectorStore(Protocol):
    """What an engine offers (EdgeVectorStore by default, ClientVectorStore for a server or
    qdrant-client's local mode); `rag.store.open_store` picks one."""

    description: str  # what the health page shows: the engine and where it keeps its index

    def collections(self) -> list[str]: ...
    def has_collection(self, name: str) -> bool: ...
    def ensure_collection(self, name: str, dim: int) -> None: ...
    def drop(self, name: str) -> None: ...
    def count(self, name: str) -> int: ...
    def upsert(self, name: str, points: Iterable[Point], batch_size: int = 256) -> int: ...
    def delete(self, name: str, ids: Iterable[str]) -> None: ...
    def point_ids(self, name: str) -> set[str]: ...
    def scroll(self, name: str, filter: Filter = None, with_vectors: bool = False, limit: int = 1024) -> Iterable: ...
    def search_dense(self, name: str, vector: Sequence[float], limit: int = 20, filter: Filter = None) -> list[Hit]: ...
    def search_sparse(self, name: str, vector: SparseVector, limit: int = 20, filter: Filter = None) -> list[Hit]: ...
    def ping(self) -> float: ...
    def close(self) -> None: ...


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
