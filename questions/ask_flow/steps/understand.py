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

from ...models import Question
from ..context import Understanding


def start_understanding(question: Question, llm) -> Understanding:
    steps, calls = executors.ask_steps(), executors.llm_calls()
    text = question.text
    intent = steps.submit(classify, text, llm, settings.ASK_CLASSIFY_TIMEOUT_S, executor=calls)
    hyde = steps.submit(hypothetical_passage, text, llm, question.game.name, settings.ASK_HYDE_TIMEOUT_S, executor=calls)
    rewrite = None
    if getattr(llm, "available", False) and follows_up(text, question.history):
        rewrite = steps.submit(
            standalone_question, text, question.history, llm, timeout=settings.ASK_FOLLOWUP_TIMEOUT_S, executor=calls,
        )  # fmt: skip
    return Understanding(intent=intent, hyde=hyde, rewrite=rewrite)


def await_hyde(understanding: Understanding) -> str | None:
    return understanding.hyde.result()


def await_rewrite(understanding: Understanding) -> str | None:
    """The follow-up's standalone question, or None (none asked for, failed, or still queued
    behind other answers' steps after its own deadline: the offline text is searched)."""
    if understanding.rewrite is None:
        return None
    try:
        return understanding.rewrite.result(timeout=settings.ASK_FOLLOWUP_TIMEOUT_S + 1.0)
    except FutureTimeout:
        return None


def await_intent(understanding: Understanding) -> str:
    return understanding.intent.result()
