"""Retrieve: the booklets' passages for the question (and its HyDE passage), from an index
brought up to date with the database first."""

from __future__ import annotations

import logging
import threading

from django.conf import settings

from games.indexing import sync_if_changed
from runtime import components
from rag.rerank import RerankError, TeiReranker
from rag.retrieve import retrieve
from runtime import executors

from ..context import AskContext

log = logging.getLogger(__name__)

_reranker_lock = threading.Lock()
_rerankers: dict[str, TeiReranker] = {}


def reranker() -> TeiReranker | None:
    """The configured cross-encoder (RERANK_URL), or None: fusion order is kept."""
    if not settings.RERANK_URL:
        return None
    with _reranker_lock:
        if settings.RERANK_URL not in _rerankers:
            _rerankers[settings.RERANK_URL] = TeiReranker(
                url=settings.RERANK_URL, api_key=settings.RERANK_API_KEY, timeout=settings.RERANK_TIMEOUT_S
            )
        return _rerankers[settings.RERANK_URL]


def sync_index(ctx: AskContext) -> None:
    ctx.store = components.vector_store()
    sync_if_changed(ctx.store, [b.collection for b in ctx.booklets])


def retrieve_passages(ctx: AskContext) -> None:
    kwargs = dict(
        store=ctx.store, embedder=components.embedder(), booklets=ctx.booklets, hyde_passage=ctx.hyde,
        top_k=settings.ASK_TOP_K * 2, executor=executors.retrieve_fanout(),
    )  # fmt: skip
    try:
        ctx.retrieval = retrieve(ctx.text, reranker=reranker(), **kwargs)
    except RerankError as exc:
        log.warning("rerank unavailable, fusion order kept: %s", exc)
        ctx.retrieval = retrieve(ctx.text, **kwargs)
