"""Answer from the rulebooks: the LLM streams it from the passages (with the page image it
may need), or, without an LLM, the extractive answer quotes them. A failed LLM answer says so
plainly, then quotes the booklets (ASK_QUOTA_FALLBACK_EXTRACTIVE)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext

from games.card_lookup import cards_named_in
from runtime import components
from rag import prompts
from rag.answer import best_page_image, build_user_prompt
from rag.extractive import extractive_answer
from rag.cards import mention_blocks, wrap_card_names
from rag.llm.base import ClaudeQuotaError, LLMError

from ..context import AskContext, Emit

log = logging.getLogger(__name__)


def answer_from_rules(ctx: AskContext) -> None:
    ctx.answer = _llm_answer(ctx) if ctx.llm.available else emit_text(extractive(ctx), ctx.emit, ctx)
    if ctx.game.card_game:  # card names become [[card:Name]]: the page previews the card
        named = cards_named_in(ctx.game, ctx.answer)
        ctx.answer = wrap_card_names(ctx.answer, [*ctx.fresh_cards, *ctx.sticky_cards, *named])


def extractive(ctx: AskContext) -> str:
    return extractive_answer(
        ctx.text, ctx.chunks, best_score=ctx.retrieval.best_score, min_score=settings.ASK_MIN_SCORE,
        embedder=components.embedder(), search_text=ctx.search_text, words_in=reader_language(),
        abstain_below=settings.ASK_ABSTAIN_BELOW,
    )  # fmt: skip


def reader_language() -> str | None:
    """"en" when the asker's interface is English (the answering thread runs under it): the
    extractive answer's own words are then English whatever the question's language; None
    leaves them in the question's language (a French interface, the API without a language)."""
    return "en" if (translation.get_language() or "").startswith("en") else None


def _llm_answer(ctx: AskContext) -> str:
    question = ctx.question
    found = components.current()
    image = best_page_image(ctx.chunks, remote_root=found.vision_images_root, renderer=components.page_renderer())
    prompt = build_user_prompt(  # every passage retrieved (ASK_TOP_K), in retrieval's final order
        question.text, ctx.chunks, game_name=ctx.game.name, bgg_metadata=ctx.game.bgg_metadata,
        history=question.history, image=image, cards_block=mention_blocks(ctx.fresh_cards, ctx.sticky_cards),
    )  # fmt: skip
    parts: list[str] = []
    stop = ctx.answering
    if stop.stopped():  # pressed while the passages were searched: no paid call starts
        ctx.stopped = True
        return ""
    try:
        for delta in ctx.llm.stream(
            prompts.SYSTEM_PROMPT, prompt, model=settings.ASK_ANSWER_MODEL,
            timeout=settings.ASK_ANSWER_TIMEOUT_S, images=[image.path] if image else [],
        ):  # fmt: skip
            if stop.stopped():  # the player pressed « Arrêter »: keep what was streamed
                ctx.stopped = True
                return "".join(parts)
            if delta:
                parts.append(delta)
                ctx.emit("token", {"text": delta})
    except ClaudeQuotaError as exc:
        reset = timezone.localtime(exc.reset_at).strftime("%H:%M") if exc.reset_at else "?"
        return _fallback(ctx, parts, gettext("Le quota du modèle de langage est atteint (reprise vers %(reset)s).") % {"reset": reset})
    except LLMError as exc:
        log.warning("answer by LLM failed: %s", exc)
        return _fallback(ctx, parts, llm_failed(exc))
    answer = "".join(parts)
    if not answer.strip():
        return _fallback(ctx, parts, llm_failed(gettext("réponse vide")))
    return answer


def _fallback(ctx: AskContext, parts: list[str], message: str) -> str:
    """After a failed LLM answer: say so plainly, then quote the booklets (when allowed)."""
    text = ("\n\n" if parts else "") + message + "\n\n"
    if settings.ASK_QUOTA_FALLBACK_EXTRACTIVE:
        text += gettext("Réponse extractive, tirée directement des livrets :") + "\n\n" + extractive(ctx)
    return "".join(parts) + emit_text(text, ctx.emit)


def llm_failed(error) -> str:
    return gettext("Le modèle de langage n'a pas pu répondre (%(error)s).") % {"error": error}


def emit_text(text: str, emit: Emit, ctx: AskContext | None = None) -> str:
    """Stream a ready answer line by line, as an LLM would stream it (up to a stop, with `ctx`)."""
    stop = ctx.answering if ctx is not None else None
    sent = []
    for line in text.splitlines(keepends=True):
        if stop is not None and stop.stopped():
            ctx.stopped = True
            return "".join(sent)
        sent.append(line)
        emit("token", {"text": line})
    return text

