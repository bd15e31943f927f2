"""Classify and HyDE: what kind of question it is, and the passage that would answer it.
Both call the LLM (when there is one), so they start first and run beside the retrieval."""

from __future__ import annotations

from django.conf import settings

from rag.classify import classify
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


def await_hyde(ctx: AskContext) -> None:
    ctx.hyde = ctx.hyde_future.result()


def await_intent(ctx: AskContext) -> None:
    ctx.intent = ctx.intent_future.result()
