"""The process-wide components built from settings: embedder, vector store, LLM backend,
lexicon, fusion and page-image options (docs/architecture.md, « Components and settings »).

`rag` is plain Python and reads no settings: this is the one place that reads Django settings
to configure it. `current()` is the one frozen `Components` value, built on first use and again
after any setting changes (Django's `setting_changed`, sent by `override_settings` and the
`settings` fixture), so a test that overrides a setting changes what the flow uses. The
vector store is the one stateful part: opened once per process (`vector_store()`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from django.conf import settings
from django.core.signals import setting_changed

from rag.embeddings import Embedder, EmbedderConfig, get_embedder
from rag.llm.config import LLMConfig
from rag.page_render import LazyRenderer
from rag.store import VectorStore, open_store

from .llm_config import llm_config


@dataclass(frozen=True)
class StoreOptions:
    url: str  # a Qdrant server, or "" for the embedded store in `path`
    api_key: str
    path: Path | str
    engine: str


@dataclass(frozen=True)
class Components:
    embedder: EmbedderConfig
    store: StoreOptions
    llm: LLMConfig
    dictionary_dir: str  # BILINGUAL_DICTIONARY_DIR: FreeDict's files, for searches across languages
    fusion_v2: bool  # RAG_FUSION_V2_ENABLED: RRF v2, else plain RRF (rag.fusion)
    page_images_dpi: int

    @property
    def vision_images_root(self) -> str:
        """Where the LLM reads page images: the VM's folder for claude-ssh, else local paths ("")."""
        return self.llm.ssh.images_path if self.llm.backend == "claude-ssh" else ""


_current: Components | None = None
_lock = threading.Lock()
_store: VectorStore | None = None
_store_lock = threading.Lock()
_page_source: Callable[[Path], Path | None] | None = None  # images folder -> its booklet's PDF


def current() -> Components:
    """The components of the settings in force now."""
    global _current
    found = _current
    if found is None:
        with _lock:
            found = _current = _current or _from_settings()
    return found


def _from_settings() -> Components:
    return Components(
        embedder=embedder_config(),
        store=StoreOptions(settings.QDRANT_URL, settings.QDRANT_API_KEY, settings.QDRANT_PATH, settings.QDRANT_EMBEDDED_ENGINE),
        llm=llm_config(settings),
        dictionary_dir=str(settings.BILINGUAL_DICTIONARY_DIR),
        fusion_v2=bool(settings.RAG_FUSION_V2_ENABLED),
        page_images_dpi=settings.PAGE_IMAGES_DPI,
    )


def _settings_changed(**kwargs) -> None:
    global _current
    with _lock:
        _current = None


setting_changed.connect(_settings_changed, dispatch_uid="runtime-components")


def connect(*, page_source: Callable[[Path], Path | None] | None) -> None:
    """The games app hands over the one thing only it knows: where a booklet's page images are
    rendered from (`runtime` imports no app)."""
    global _page_source
    _page_source = page_source


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
    return get_embedder(current().embedder)


def store_is_shared() -> bool:
    """A Qdrant server can be written by any process; an embedded folder by its owner only."""
    return bool(current().store.url)


def vector_store() -> VectorStore:
    """The store of this process. With the embedded store (Qdrant Edge or local mode), only the
    web (or a command) process may call this: the folder is locked by whoever opens it first
    (docs/architecture.md, decision 2), and another process gets `VectorStoreError`."""
    global _store
    with _store_lock:
        if _store is None:
            options = current().store
            _store = open_store(url=options.url, api_key=options.api_key, path=options.path, engine=options.engine)
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

    config = current().llm
    if config.backend == "none":
        return NoLLM()
    from rag.llm.factory import backend_for  # one backend per configuration

    return backend_for(config)


def lexicon():
    """The bilingual lexicon for BILINGUAL_DICTIONARY_DIR (cached per folder by rag.lexicon)."""
    from rag.lexicon import lexicon as load

    return load(current().dictionary_dir)


def page_renderer() -> LazyRenderer:
    """How a page image is rendered on first need (rag.page_render): the booklet's PDF, the DPI."""
    return LazyRenderer(source=_page_source, dpi=current().page_images_dpi)
