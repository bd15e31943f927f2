"""Retrieve: the booklets' passages for the question (and its HyDE passage), from an index
brought up to date with the database first, reranked by the cross-encoder (RERANK_URL) or,
without one, by the LLM when one is configured (ASK_LLM_RERANK, rag.llm_rerank)."""

from __future__ import annotations

import threading

from django.conf import settings

from games.indexing import sync_if_changed
from runtime import components
from rag.followup import context_query
from rag.llm_rerank import LLMListwiseReranker
from rag.rerank import TeiReranker
from rag.retrieve import BookletRef, retrieve
from rag.store import VectorStore
from runtime import executors

from ..context import AskContext, Found, Resolved, Understanding
from .understand import await_rewrite

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


def llm_reranker(llm) -> LLMListwiseReranker | None:
    """The LLM's listwise rerank of the fused top, when an LLM is configured (and allowed)."""
    if not settings.ASK_LLM_RERANK or not getattr(llm, "available", False):
        return None
    return LLMListwiseReranker(
        llm, executor=executors.llm_calls(), top_n=settings.ASK_LLM_RERANK_TOP_N, timeout=settings.ASK_LLM_RERANK_TIMEOUT_S
    )


def sync_index(booklets: list[BookletRef]) -> VectorStore:
    """The process's store, brought up to date with the booklets' rows first."""
    store = components.vector_store()
    sync_if_changed(store, [b.collection for b in booklets])
    return store


def retrieve_passages(
    ctx: AskContext, resolved: Resolved, store: VectorStore, hyde: str | None, understanding: Understanding
) -> Found:
    rewritten = await_rewrite(understanding)
    context_text = rewritten or context_query(ctx.text, ctx.question.history)
    kwargs = dict(
        store=store, embedder=components.embedder(), booklets=resolved.booklets, hyde_passage=hyde,
        context_text=context_text,
        top_k=settings.ASK_TOP_K * 2, executor=executors.retrieve_fanout(), fusion_v2=components.current().fusion_v2,
    )  # fmt: skip
    # a failed rerank keeps the fused order (rag.retrieve); a stop pressed meanwhile starts no
    # paid call (the answer step then ends the answer)
    chosen = reranker() or llm_reranker(resolved.llm)
    if isinstance(chosen, LLMListwiseReranker) and ctx.answering.stopped():
        chosen = None
    retrieval = retrieve(ctx.text, reranker=chosen, rerank_query=context_text or ctx.text, **kwargs)
    return Found(retrieval=retrieval, hyde=hyde, context_text=context_text, follow_up_rewritten=rewritten is not None)
