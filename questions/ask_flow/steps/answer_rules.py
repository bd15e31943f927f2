"""Answer from the rulebooks: the LLM streams it from the passages (with the page image it
may need), or, without an LLM, the extractive answer quotes them. A failed LLM answer says so
plainly, in a sentence of the player's language by kind of failure (the details go to the
log), then quotes the booklets (ASK_QUOTA_FALLBACK_EXTRACTIVE).

The LLM's stream is read on a thread of its own (rag.llm.cancel): a stop pressed while the
model is silent takes effect within CHECK_EVERY_S and ends the call, instead of waiting for
the next token or the timeout."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext

from games.card_lookup import cards_named_in
from runtime import components
from rag import prompts
from rag.answer import best_page_image, build_user_prompt
from rag.extractive import extractive_answer
from rag.cards import mention_blocks, wrap_card_names
from rag.llm import failure_words
from rag.llm.base import AnswerStopped, ClaudeQuotaError, LLMError
from rag.retrieve import RetrievedChunk

from ..context import Answer, AskContext, Emit, Found, Resolved, search_text
from ..stop import StoppableLLM

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Brief:
    """What the answer is written from: the question's context, what it is about, the passages."""

    ctx: AskContext
    resolved: Resolved
    found: Found
    chunks: list[RetrievedChunk]


def answer_from_rules(ctx: AskContext, resolved: Resolved, found: Found, chunks: list[RetrievedChunk]) -> Answer:
    brief = Brief(ctx, resolved, found, chunks)
    if resolved.llm.available:
        answer = _llm_answer(brief)
    else:
        answer = emit_text(extractive(brief), ctx.emit, ctx.answering)
    if ctx.game.card_game:  # card names become [[card:Name]]: the page previews the card
        named = cards_named_in(ctx.game, answer.text)
        text = wrap_card_names(answer.text, [*resolved.fresh_cards, *resolved.sticky_cards, *named])
        answer = Answer(text, stopped=answer.stopped)
    return answer


def extractive(brief: Brief) -> str:
    return extractive_answer(
        brief.ctx.text, brief.chunks, best_score=brief.found.retrieval.best_score, min_score=settings.ASK_MIN_SCORE,
        embedder=components.embedder(), search_text=search_text(brief.ctx.question, brief.found),
        words_in=reader_language(), abstain_below=settings.ASK_ABSTAIN_BELOW,
    )  # fmt: skip


def reader_language() -> str | None:
    """"en" when the asker's interface is English (the answering thread runs under it): the
    extractive answer's own words are then English whatever the question's language; None
    leaves them in the question's language (a French interface, the API without a language)."""
    return "en" if (translation.get_language() or "").startswith("en") else None


def _llm_answer(brief: Brief) -> Answer:
    ctx, llm = brief.ctx, brief.resolved.llm
    question = ctx.question
    found = components.current()
    image = best_page_image(brief.chunks, remote_root=found.vision_images_root, renderer=components.page_renderer())
    prompt = build_user_prompt(  # every passage retrieved (ASK_TOP_K), in retrieval's final order
        question.text, brief.chunks, game_name=ctx.game.name, bgg_metadata=ctx.game.bgg_metadata, history=question.history,
        image=image, cards_block=mention_blocks(brief.resolved.fresh_cards, brief.resolved.sticky_cards),
    )  # fmt: skip
    parts: list[str] = []
    # StoppableLLM: no paid call starts once stopped while the passages were searched, and a stop
    # ends the call within CHECK_EVERY_S even while the model is silent
    deltas = StoppableLLM(llm, ctx.answering).stream(
        prompts.SYSTEM_PROMPT, prompt, model=settings.ASK_ANSWER_MODEL,
        timeout=settings.ASK_ANSWER_TIMEOUT_S, images=[image.path] if image else [],
    )  # fmt: skip
    try:
        for delta in deltas:
            if delta:
                parts.append(delta)
                ctx.emit("token", {"text": delta})
    except AnswerStopped:  # the player pressed « Arrêter », between tokens or while the model was silent
        return Answer("".join(parts), stopped=True)
    except LLMError as exc:
        log.warning("answer by LLM failed: %s", exc)
        return _fallback(brief, parts, llm_failed(exc))
    if not "".join(parts).strip():
        log.warning("answer by LLM was empty")
        return _fallback(brief, parts, failure_words.sentence("empty", reader_language()))
    return Answer("".join(parts))


def _fallback(brief: Brief, parts: list[str], message: str) -> Answer:
    """After a failed LLM answer: say so plainly, then quote the booklets (when allowed)."""
    text = ("\n\n" if parts else "") + message + "\n\n"
    if settings.ASK_QUOTA_FALLBACK_EXTRACTIVE:
        text += gettext("Réponse extractive, tirée directement des livrets :") + "\n\n" + extractive(brief)
    return Answer("".join(parts) + emit_text(text, brief.ctx.emit).text)


def llm_failed(error: Exception) -> str:
    """What the player reads when the LLM failed, in the interface's language: one sentence by
    kind of failure (rag.llm.failure_words), a quota's resume time in the site's time zone."""
    at = error.reset_at if isinstance(error, ClaudeQuotaError) else None
    reset = timezone.localtime(at).strftime("%H:%M") if at else "?"
    return failure_words.failure(error, reader_language(), reset=reset)


def emit_text(text: str, emit: Emit, stop=None) -> Answer:
    """Stream a ready answer line by line, as an LLM would stream it (up to a stop, with the
    question's `Answering` as `stop`)."""
    sent = []
    for line in text.splitlines(keepends=True):
        if stop is not None and stop.stopped():
            return Answer("".join(sent), stopped=True)
        sent.append(line)
        emit("token", {"text": line})
    return Answer(text)
