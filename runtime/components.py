"""The process-wide components built from settings: embedder, vector store, LLM backend.

`rag` is plain Python; this is the one place that reads Django settings to configure it.
"""

import threading

from django.conf import settings

from rag.embeddings import Embedder, EmbedderConfig, get_embedder
from rag.store import VectorStore, open_store

_store: VectorStore | None = None
_store_lock = threading.Lock()


def embedder_config() -> EmbedderConfig:
    return EmbedderConfig(
        backend=settings.EMBEDDINGS_BACKEND,
        tei_url=settings.TEI_URL,
        tei_api_key=settings.TEI_API_KEY,
        openai_url=settings.EMBEDDINGS_OPENAI_URL,
        openai_model=settings.EMBEDDINGS_OPENAI_MODEL,
        openai_api_key=settings.EMBEDDINGS_OPENAI_API_KEY,
        threads=settings.EMBEDDINGS_THREADS,
        timeout=settings.EMBEDDINGS_TIMEOUT_S,
        asking_file=str(settings.ASKING_SIGNAL_FILE),
        asking_ttl_s=settings.ASKING_SIGNAL_TTL_S,
    )


def embedder() -> Embedder:
    return get_embedder(embedder_config())


def store_is_shared() -> bool:
    """A Qdrant server can be written by any process; an embedded folder by its owner only."""
    return bool(settings.QDRANT_URL)


def vector_store() -> VectorStore:
    """The store of this process. With the embedded store (Qdrant Edge or local mode), only the
    web (or a command) process may call this: the folder is locked by whoever opens it first
    (docs/architecture.md, decision 2), and another process gets `VectorStoreError`."""
    global _store
    with _store_lock:
        if _store is None:
            _store = open_store(
                url=settings.QDRANT_URL,
                api_key=settings.QDRANT_API_KEY,
                path=settings.QDRANT_PATH,
                engine=settings.QDRANT_EMBEDDED_ENGINE,
            )
        return _store


def reset_vector_store() -> None:
    """Close and forget the store (the tests, between two tests' folders; `manage.py reindex`
    does not: it rebuilds the collections in the store it opens)."""
    global _store
    with _store_lock:
        if _store is not None:
            _store.close()
        _store = None


def llm_backend():
    """The configured LLM backend (`LLM_BACKEND`); `none` gives the offline paths."""
    from rag.llm import NoLLM

    if settings.LLM_BACKEND == "none":
        return NoLLM()
    from rag.llm.factory import backend_from_settings  # built by the LLM backends module

    return backend_from_settings(settings)


def lexicon():
    """The bilingual lexicon for BILINGUAL_DICTIONARY_DIR (cached per folder by rag.lexicon)."""
    from rag.lexicon import lexicon as load

    return load(settings.BILINGUAL_DICTIONARY_DIR)
