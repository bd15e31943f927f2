"""Classify, HyDE and the follow-up rewrite: what kind of question it is, the passage that
would answer it, and a follow-up as a question that stands alone. Each calls the LLM (when
there is one), so they start first and run beside the index sync."""

from __future__ import annotations

from concurrent.futures import TimeoutError as FutureTimeout

from django.conf import settings

from rag.classify import classify
from rag.followup import follows_up, standalone_question
from rag.hyde import hypothetical_passage
from runtime import executors

from ..context import AskContext


def start_understanding(ctx: AskContext) -> None:
    steps, calls = executors.ask_steps(), executors.llm_calls()
    ctx.intent_future = steps.submit(
        classify, ctx.text, ctx.llm, settings.ASK_CLASSIFY_TIMEOUT_S, executor=calls
    )
    ctx.hyde_future = steps.submit(
        hypothetical_passage, ctx.text, ctx.llm, ctx.game.name, settings.ASK_HYDE_TIMEOUT_S, executor=calls
    )
    if getattr(ctx.llm, "available", False) and follows_up(ctx.text, ctx.question.history):
        ctx.rewrite_future = steps.submit(
            standalone_question, ctx.text, ctx.question.history, ctx.llm,
            timeout=settings.ASK_FOLLOWUP_TIMEOUT_S, executor=calls,
        )


def await_hyde(ctx: AskContext) -> None:
    ctx.hyde = ctx.hyde_future.result()


def await_rewrite(ctx: AskContext) -> str | None:
    """The follow-up's standalone question, or None (none asked for, failed, or still queued
    behind other answers' steps after its own deadline: the offline text is searched)."""
    if ctx.rewrite_future is None:
        return None
    try:
        return ctx.rewrite_future.result(timeout=settings.ASK_FOLLOWUP_TIMEOUT_S + 1.0)
    except FutureTimeout:
        return None


def await_intent(ctx: AskContext) -> None:
    ctx.intent = ctx.intent_future.result()
