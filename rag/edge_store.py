"""The embedded vector store on Qdrant Edge (`qdrant-edge-py`, Qdrant's in-process engine):
the same interface as `rag.store.VectorStore`, one shard folder per collection.

Why: qdrant-client's local mode scores sparse (BM25) vectors in pure Python — ~420 ms per
search at 30k points — while Edge runs Qdrant's own index (~1 ms at 5k points, measured
in docs/asking.md). Chosen with QDRANT_EMBEDDED_ENGINE=edge; a Qdrant server
(QDRANT_URL) still goes through qdrant-client.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Iterable, Sequence

import qdrant_edge as qe

from rag.sparse import SparseVector
from rag.store import DENSE, SPARSE, Hit, Point, VectorStoreError

META_FILE = "oracle-collection.json"


def _filter(spec) -> qe.Filter | None:
    """{"field": value | [values], "!field": value} → an Edge filter (`!` negates)."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise VectorStoreError("the edge store takes filters as dicts")
    must, must_not = [], []
    for key, value in spec.items():
        target = must_not if key.startswith("!") else must
        match = qe.MatchAny(any=list(value)) if isinstance(value, (list, tuple, set)) else qe.MatchValue(value)
        target.append(qe.FieldCondition(key=key.lstrip("!"), match=match))
    return qe.Filter(must=must or None, must_not=must_not or None)


class EdgeRecord:
    """What `scroll` yields: `.id`, `.payload`, `.vector` like qdrant-client's Record."""

    __slots__ = ("id", "payload", "vector")

    def __init__(self, record):
        self.id = str(record.id)
        self.payload = record.payload or {}
        self.vector = record.vector


class EdgeVectorStore:
    def __init__(self, path: str | Path):
        self.root = Path(path)
        self.root.mkdir(parents=True, exist_ok=True)
        self.description = f"edge {self.root}"
        self._lock = threading.RLock()
        self._shards: dict[str, qe.EdgeShard] = {}
        for folder in sorted(self.root.iterdir()):
            if (folder / META_FILE).exists():
                self._shards[folder.name] = qe.EdgeShard.load(str(folder))

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
        with self._lock:
            shard = self._shards.pop(name, None)
            if shard is not None:
                shard.close()
            shutil.rmtree(self.root / name, ignore_errors=True)

    def count(self, name: str) -> int:
        shard = self._shards.get(name)
        return shard.count(qe.CountRequest(exact=True)) if shard else 0

    # --- points --------------------------------------------------------------------------

    def upsert(self, name: str, points: Iterable[Point], batch_size: int = 256) -> int:
        shard = self._shards[name]
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
        shard = self._shards.get(name)
        if shard is None:
            return
        offset = None
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=limit, filter=_filter(filter),
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
        shard = self._shards.get(name)
        if shard is None:
            return []
        points = shard.query(qe.QueryRequest(limit=limit, query=query, filter=_filter(filter), with_payload=True))
        return [Hit(id=str(p.id), score=float(p.score), payload=p.payload or {}, collection=name) for p in points]

    # --- health --------------------------------------------------------------------------

    def ping(self) -> float:
        start = time.perf_counter()
        self.collections()
        return time.perf_counter() - start

    def close(self) -> None:
        with self._lock:
            for shard in self._shards.values():
                shard.close()
            self._shards.clear()
