"""The vector store: Qdrant, embedded (a folder, one process: Qdrant Edge by default, see
rag/edge_store.py, or qdrant-client's local mode, rag/client_store.py) or a server
(`QDRANT_URL`, rag/client_store.py).

One collection per booklet (`rules_<slug>`), each point with a named dense vector `dense`
(cosine) and a named sparse vector `bm25` whose IDF Qdrant computes (`Modifier.IDF`).
The database holds the truth; everything here can be rebuilt from it.

Callers import the interface and types from here; `open_store` imports the engine asked for,
so the embedded default never loads qdrant-client.
"""

from __future__ import annotations

from pathlib import Path

from rag.store_base import DENSE, SPARSE, Filter, Hit, Point, VectorStore, VectorStoreError

__all__ = ["DENSE", "SPARSE", "Filter", "Hit", "Point", "VectorStore", "VectorStoreError", "open_store"]


def open_store(
    url: str = "", api_key: str = "", path: str | Path = "", timeout: int = 30, engine: str = "edge"
) -> VectorStore:
    """A server when `url` is set, else the embedded store in `path`: Qdrant Edge
    (rag/edge_store.py) under `path`/edge, or with `engine="local"` qdrant-client's local mode
    in `path` itself, so that switching engines never reads the other one's files.
    Either way one process owns the folder: another one gets `VectorStoreError`.
    `path=":memory:"` gives a throw-away in-memory local-mode index whatever the engine."""
    if not url and engine == "edge" and str(path) != ":memory:":
        from rag.edge_store import EdgeVectorStore

        return EdgeVectorStore(Path(path) / "edge")
    from rag.client_store import open_client_store

    return open_client_store(url=url, api_key=api_key, path=path, timeout=timeout)
