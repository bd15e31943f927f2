"""The payloads of the ask stream's events (docs/asking.md): phase, context, diagnostics, done."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from rag.confidence import signals_of
from rag.retrieve import RetrievedChunk

from ..confidence import level_for

from .context import Answered

EXCERPT_CHARS = 600
# The Oracle's steps as the player reads them, in the asker's language (the answering thread
# runs under it, questions/ask_flow/background.py).
PHASES = {
    "weigh": _("L'Oracle pèse votre question"),
    "dive": _("L'Oracle plonge dans le grimoire"),
    "write": _("L'Oracle rédige sa réponse"),
}


def phase(key: str) -> dict:
    return {"key": key, "label": str(PHASES[key])}


def chunk_summary(chunk: RetrievedChunk) -> dict:
    return {
        "booklet": chunk.booklet.name,
        "booklet_slug": chunk.booklet.slug,
        "collection": chunk.booklet.collection,
        "kind": chunk.booklet.kind,
        "pages": chunk.pages,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "hierarchy_path": chunk.hierarchy_path,
        "score": chunk.score,
        "dense_score": chunk.dense_score,
        "rerank_score": chunk.rerank_score,
        "text": chunk.text[:EXCERPT_CHARS],
        "chunk_id": chunk.payload.get("chunk_id", chunk.id),
        "is_extension": chunk.booklet.is_extension,
        "is_forum": chunk.is_forum,
        "conflict": chunk.conflict,
        # the base passage this one changes, when retrieval put it first (rag.overrides)
        "overrides": {"booklet": chunk.overrides.booklet.name, "page": chunk.overrides.page_start}
        if chunk.overrides is not None else None,
    }


def context(ctx: Answered) -> dict:
    return {
        "chunks": [chunk_summary(c) for c in ctx.chunks],
        "mentionedCards": ctx.fresh_cards,
        "stickyMentionedCards": ctx.sticky_cards,
        "intent": ctx.intent,
    }


def diagnostics(ctx: Answered) -> dict:
    retrieval = ctx.retrieval
    found = {
        "chunks": [{k: v for k, v in chunk_summary(c).items() if k != "text"} for c in ctx.chunks],
        "hyde": ctx.hyde,
        "timings": {**ctx.timer.timings, **{f"retrieval.{k}": v for k, v in retrieval.timings_ms.items()}},
        "bestScore": retrieval.best_score,
        "intent": ctx.intent,
        "ruleNumbers": retrieval.rule_numbers,
        "followUpOf": ctx.context_text,  # a follow-up was searched with this text too
        "followUpRewritten": ctx.follow_up_rewritten,  # …written by the LLM (else the offline text)
        "reranked": retrieval.reranked,
        "llm": ctx.llm.name,
    }
    if not ctx.wants_deck:  # rulebook passages: how sure the answer is (rag.confidence)
        signals = signals_of(ctx.search_text, ctx.chunks, retrieval.best_score, answer=ctx.answer)
        found["confidence"] = {**signals.as_dict(), "level": level_for(signals)}
    if "deck" in ctx.done_extra:  # deckbuilding: its verdict, and its exports for the reloaded chat
        found["deck"] = {k: ctx.done_extra["deck"][k] for k in ("validation", "spec", "attempts", "builder", "exports")}
    return found


def done(ctx: Answered) -> dict:
    """The answer, and the cards the chat sends back next turn (a deck's own list wins)."""
    return {
        "fullAnswer": ctx.answer,
        "questionId": str(ctx.question.pk),
        "bestScore": ctx.retrieval.best_score,
        "confidence": (ctx.diagnostics.get("confidence") or {}).get("level"),
        "stickyCardMentions": ctx.sticky_after,
        **ctx.done_extra,
    }
