"""The vector store through qdrant-client: a Qdrant server (`QDRANT_URL`), or qdrant-client's
local mode (`QDRANT_EMBEDDED_ENGINE=local`, or an in-memory index). Imported only when one of
those is asked for (`rag.store.open_store`): qdrant-client takes ~0.9 s to import."""

from __future__ import annotations

import functools
import threading
import time
from pathlib import Path
from typing import Iterable, Sequence

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException

from rag.sparse import SparseVector
from rag.store_base import DENSE, SPARSE, Filter, Hit, Point, ReadWriteLock, VectorStoreError, filter_conditions


def client_filter(spec: Filter) -> models.Filter | None:
    """A `rag.store_base.Filter` as qdrant-client's filter."""
    if spec is None:
        return None
    must, must_not = filter_conditions(spec)
    return models.Filter(must=[_condition(*c) for c in must] or None, must_not=[_condition(*c) for c in must_not] or None)


def _condition(key: str, value) -> models.FieldCondition:
    match = models.MatchAny(any=value) if isinstance(value, list) else models.MatchValue(value=value)
    return models.FieldCondition(key=key, match=match)


class _Reached:
    """The client, a server it cannot reach (refused, timed out) raised as VectorStoreError:
    the one error the callers handle (`reindex`, `import_cards`, the index sync). qdrant-client's
    ResponseHandlingException « Connection refused » came out of the commands as a traceback."""

    def __init__(self, client: QdrantClient, description: str):
        self._client = client
        self._description = description

    def __getattr__(self, name):
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        def call(*args, **kwargs):
            try:
                return attr(*args, **kwargs)
            except ResponseHandlingException as exc:
                raise VectorStoreError(f"Qdrant {self._description} is unreachable: {exc}") from exc

        return call


class ClientVectorStore:
    """The store through qdrant-client: a Qdrant server, or local mode in a folder or in memory."""

    def __init__(self, client: QdrantClient, description: str):
        self.client = _Reached(client, description)
        self.description = description
        self._known: set[str] = set()
        self._lock = threading.RLock()
        self._rw = ReadWriteLock()

    # --- collections -------------------------------------------------------------------

    def collections(self) -> list[str]:
        return sorted(c.name for c in self.client.get_collections().collections)

    def has_collection(self, name: str) -> bool:
        if name in self._known:
            return True
        exists = self.client.collection_exists(name)
        if exists:
            self._known.add(name)
        return exists

    def ensure_collection(self, name: str, dim: int) -> None:
        with self._lock:
            if self.has_collection(name):
                info = self.client.get_collection(name)
                size = info.config.params.vectors[DENSE].size
                if size != dim:
                    raise VectorStoreError(
                        f"collection {name} holds {size}-d vectors, the embedder gives {dim}-d: reindex needed"
                    )
                return
            self.client.create_collection(
                name,
                vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)},
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            )
            self._known.add(name)

    def drop(self, name: str) -> None:
        with self._lock:
            self._known.discard(name)
            if self.client.collection_exists(name):
                with self._rw.writing():
                    self.client.delete_collection(name)

    def count(self, name: str) -> int:
        if not self.has_collection(name):
            return 0
        return self.client.count(name, exact=True).count

    # --- points --------------------------------------------------------------------------

    def upsert(self, name: str, points: Iterable[Point], batch_size: int = 256) -> int:
        batch: list[models.PointStruct] = []
        written = 0
        for point in points:
            batch.append(
                models.PointStruct(
                    id=str(point.id),
                    vector={
                        DENSE: [float(x) for x in point.dense],
                        SPARSE: models.SparseVector(indices=point.sparse.indices, values=point.sparse.values),
                    },
                    payload=point.payload,
                )
            )
            if len(batch) >= batch_size:
                with self._rw.writing():
                    self.client.upsert(name, batch, wait=True)
                written += len(batch)
                batch = []
        if batch:
            with self._rw.writing():
                self.client.upsert(name, batch, wait=True)
            written += len(batch)
        return written

    def delete(self, name: str, ids: Iterable[str]) -> None:
        ids = [str(i) for i in ids]
        if ids and self.has_collection(name):
            with self._rw.writing():
                self.client.delete(name, points_selector=models.PointIdsList(points=ids), wait=True)

    def point_ids(self, name: str) -> set[str]:
        if not self.has_collection(name):
            return set()
        ids: set[str] = set()
        offset = None
        while True:
            records, offset = self.client.scroll(
                name, limit=2048, offset=offset, with_payload=False, with_vectors=False
            )
            ids.update(str(r.id) for r in records)
            if offset is None:
                return ids

    def scroll(self, name: str, filter: Filter = None, with_vectors: bool = False, limit: int = 1024):
        """Yield every point (payload, optionally vectors) matching a filter."""
        if not self.has_collection(name):
            return
        offset = None
        while True:
            records, offset = self.client.scroll(
                name,
                scroll_filter=client_filter(filter),
                limit=limit,
                offset=offset,
                with_payload=True,
                with_vectors=with_vectors,
            )
            yield from records
            if offset is None:
                return

    # --- search --------------------------------------------------------------------------

    def search_dense(self, name: str, vector: Sequence[float], limit: int = 20, filter: Filter = None) -> list[Hit]:
        return self._query(name, [float(x) for x in vector], DENSE, limit, filter)

    def search_sparse(self, name: str, vector: SparseVector, limit: int = 20, filter: Filter = None) -> list[Hit]:
        if not vector.indices:
            return []
        query = models.SparseVector(indices=vector.indices, values=vector.values)
        return self._query(name, query, SPARSE, limit, filter)

    def _query(self, name: str, query, using: str, limit: int, filter: Filter) -> list[Hit]:
        if not self.has_collection(name):
            return []
        with self._rw.reading():
            response = self.client.query_points(
                name, query=query, using=using, limit=limit, query_filter=client_filter(filter), with_payload=True
            )
        return [Hit(id=str(p.id), score=float(p.score), payload=p.payload or {}, collection=name) for p in response.points]

    # --- health --------------------------------------------------------------------------

    def ping(self) -> float:
        start = time.perf_counter()
        self.client.get_collections()
        return time.perf_counter() - start

    def close(self) -> None:
        self.client.close()


def open_client_store(url: str = "", api_key: str = "", path: str | Path = "", timeout: int = 30) -> ClientVectorStore:
    """A server when `url` is set (unreachable: `VectorStoreError`), an in-memory index for
    `path=":memory:"`, else local mode in `path` (one process owns the folder: another one gets
    `VectorStoreError`)."""
    if url:
        store = ClientVectorStore(QdrantClient(url=url, api_key=api_key or None, timeout=timeout), f"server {url}")
        try:
            store.ping()  # a server that is down is told at once, where callers check the opening
        except VectorStoreError:
            store.close()
            raise
        return store
    if str(path) == ":memory:":
        return ClientVectorStore(QdrantClient(location=":memory:", force_disable_check_same_thread=True), "in-memory")
    Path(path).mkdir(parents=True, exist_ok=True)
    try:
        # Searches and index syncs run on different threads of the web process.
        client = QdrantClient(path=str(path), force_disable_check_same_thread=True)
    except RuntimeError as exc:  # local mode: another process holds the folder's lock
        raise VectorStoreError(f"local Qdrant folder {path} is in use by another process: {exc}") from exc
    return ClientVectorStore(client, f"local {path}")
