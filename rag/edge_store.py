"""The embedded vector store (the default, `QDRANT_EMBEDDED_ENGINE=edge`) on Qdrant Edge
(`qdrant-edge-py`, Qdrant's Rust engine in-process): the interface of
`rag.store_base.VectorStore`, one shard folder per collection under `QDRANT_PATH/edge`.

Why: qdrant-client's local mode scores sparse (BM25) vectors in pure Python (~420 ms per
search at 30k points, p95 240 ms for a whole retrieval at 2k chunks) while Edge runs
Qdrant's own index (retrieval p95 61 ms at 2k chunks, 76 ms at 30k; docs/asking.md).
`QDRANT_EMBEDDED_ENGINE=local` keeps local mode; a Qdrant server (`QDRANT_URL`) still goes
through qdrant-client.

Filters: the `{"field": value | [values], "!field": value}` dicts of `rag.store_base.Filter`,
translated to Edge's. No qdrant-client here: the embedded default never imports it.

One process owns the folder (docs/architecture.md, decision 2), as in local mode, enforced by an
exclusive lock on `QDRANT_PATH/edge/.lock` taken before any shard is read: a second process
gets `VectorStoreError` and leaves indexing to the owner. Edge's own WAL lock is not enough:
a second process that merely tries to load a shard held elsewhere breaks the holder's next
flush (payload storage "tracker journal is shorter than expected"), so it must never try.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Iterable, Sequence

import qdrant_edge as qe

from rag.sparse import SparseVector
from rag.store_base import DENSE, SPARSE, Filter, Hit, Point, ReadWriteLock, VectorStoreError, filter_conditions

META_FILE = "oracle-collection.json"
LOCK_FILE = ".lock"


def _filter(spec: Filter) -> qe.Filter | None:
    """A `rag.store_base.Filter` as Edge's filter."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise VectorStoreError(f"unsupported filter for the edge store: {type(spec).__name__}")
    must, must_not = filter_conditions(spec)
    return qe.Filter(must=[_condition(*c) for c in must] or None, must_not=[_condition(*c) for c in must_not] or None)


def _condition(key: str, value) -> qe.FieldCondition:
    return qe.FieldCondition(key=key, match=qe.MatchAny(any=value) if isinstance(value, list) else qe.MatchValue(value))


class EdgeRecord:
    """What `scroll` yields: `.id`, `.payload`, `.vector` like qdrant-client's Record."""

    __slots__ = ("id", "payload", "vector")

    def __init__(self, record):
        self.id = str(record.id)
        self.payload = record.payload or {}
        self.vector = record.vector


def _lock_folder(root: Path):
    """Hold an exclusive lock on the folder for the life of the store (released on close or
    when the process dies). The lock file names its owner's pid: when that process is dead
    but the lock is still held — a child inherited the descriptor — the lock is taken over on
    a new lock file (the inheritor never touches the store)."""
    handle = _try_lock(root)
    if handle is None:
        owner = _owner_pid(root)
        if owner is not None and not _alive(owner):
            (root / LOCK_FILE).unlink(missing_ok=True)
            handle = _try_lock(root)
    if handle is None:
        raise VectorStoreError(f"Qdrant Edge folder {root} is in use by another process (pid {_owner_pid(root)} in {root / LOCK_FILE})")
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _try_lock(root: Path):
    handle = open(root / LOCK_FILE, "a+")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def _owner_pid(root: Path) -> int | None:
    try:
        text = (root / LOCK_FILE).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


class EdgeVectorStore:
    def __init__(self, path: str | Path):
        self.root = Path(path)
        self.root.mkdir(parents=True, exist_ok=True)
        self.description = f"edge {self.root}"
        self._lock = threading.RLock()
        self._rw = ReadWriteLock()
        self._lock_handle = _lock_folder(self.root)
        self._shards: dict[str, qe.EdgeShard] = {}
        try:
            for folder in sorted(self.root.iterdir()):
                if (folder / META_FILE).exists():
                    self._shards[folder.name] = qe.EdgeShard.load(str(folder))
        except Exception:
            self.close()
            raise

    # --- collections -------------------------------------------------------------------

    def collections(self) -> list[str]:
        return sorted(self._shards)

    def has_collection(self, name: str) -> bool:
        return name in self._shards

    def ensure_collection(self, name: str, dim: int) -> None:
        with self._lock:
            if name in self._shards:
                size = json.loads((self.root / name / META_FILE).read_text())["dim"]
                if size != dim:
                    raise VectorStoreError(
                        f"collection {name} holds {size}-d vectors, the embedder gives {dim}-d: reindex needed"
                    )
                return
            config = qe.EdgeConfig(
                vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
                sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            )
            folder = self.root / name
            self._shards[name] = qe.EdgeShard.create(str(folder), config)
            (folder / META_FILE).write_text(json.dumps({"dim": dim}))

    def drop(self, name: str) -> None:
        with self._lock, self._rw.writing():  # no search is using the shard when it closes
            shard = self._shards.pop(name, None)
            if shard is not None:
                shard.close()
            shutil.rmtree(self.root / name, ignore_errors=True)

    def count(self, name: str) -> int:
        with self._rw.reading():
            shard = self._shards.get(name)
            return shard.count(qe.CountRequest(exact=True)) if shard else 0

    # --- points --------------------------------------------------------------------------

    def upsert(self, name: str, points: Iterable[Point], batch_size: int = 256) -> int:
        shard = self._shards.get(name)
        if shard is None:
            raise VectorStoreError(f"collection {name} does not exist (ensure_collection first)")
        written, batch = 0, []
        for point in points:
            vectors = {
                DENSE: [float(x) for x in point.dense],
                SPARSE: qe.SparseVector(list(point.sparse.indices), [float(v) for v in point.sparse.values]),
            }
            batch.append(qe.Point(str(point.id), vectors, point.payload))
            if len(batch) >= batch_size:
                written += self._write(shard, batch)
                batch = []
        if batch:
            written += self._write(shard, batch)
        with self._lock:
            shard.flush()
        return written

    def _write(self, shard, batch) -> int:
        with self._lock:
            shard.update(qe.UpdateOperation.upsert_points(batch))
        return len(batch)

    def delete(self, name: str, ids: Iterable[str]) -> None:
        ids = [str(i) for i in ids]
        shard = self._shards.get(name)
        if ids and shard is not None:
            with self._lock:
                shard.update(qe.UpdateOperation.delete_points(ids))
                shard.flush()

    def point_ids(self, name: str) -> set[str]:
        return {record.id for record in self.scroll(name, with_payload=False)}

    def scroll(self, name: str, filter=None, with_vectors: bool = False, limit: int = 1024, with_payload: bool = True):
        """Yield every point (payload, optionally vectors) matching a filter."""
        edge_filter = _filter(filter)
        offset = None
        while True:
            with self._rw.reading():  # page by page: a half-read generator holds no lock
                shard = self._shards.get(name)
                if shard is None:
                    return
                records, offset = shard.scroll(
                    qe.ScrollRequest(offset=offset, limit=limit, filter=edge_filter,
                                     with_payload=with_payload, with_vector=with_vectors)
                )
            yield from (EdgeRecord(r) for r in records)
            if offset is None:
                return

    # --- search --------------------------------------------------------------------------

    def search_dense(self, name: str, vector: Sequence[float], limit: int = 20, filter=None) -> list[Hit]:
        return self._query(name, qe.Query.Nearest([float(x) for x in vector], using=DENSE), limit, filter)

    def search_sparse(self, name: str, vector: SparseVector, limit: int = 20, filter=None) -> list[Hit]:
        if not vector.indices:
            return []
        query = qe.Query.Nearest(qe.SparseVector(list(vector.indices), [float(v) for v in vector.values]), using=SPARSE)
        return self._query(name, query, limit, filter)

    def _query(self, name: str, query, limit: int, filter) -> list[Hit]:
        request = qe.QueryRequest(limit=limit, query=query, filter=_filter(filter), with_payload=True)
        with self._rw.reading():
            shard = self._shards.get(name)
            if shard is None:
                return []
            points = shard.query(request)
        return [Hit(id=str(p.id), score=float(p.score), payload=p.payload or {}, collection=name) for p in points]

    # --- health --------------------------------------------------------------------------

    def ping(self) -> float:
        start = time.perf_counter()
        if self._lock_handle is None:
            raise VectorStoreError(f"{self.description} is closed")
        if not self.root.is_dir():
            raise VectorStoreError(f"{self.description}: the folder is gone; run `manage.py reindex`")
        with self._rw.reading():
            for shard in list(self._shards.values()):
                shard.count(qe.CountRequest(exact=False))
        return time.perf_counter() - start

    def close(self) -> None:
        with self._lock, self._rw.writing():
            for shard in self._shards.values():
                shard.close()
            self._shards.clear()
            if self._lock_handle is not None:
                self._lock_handle.close()  # releases the folder lock
                self._lock_handle = None
