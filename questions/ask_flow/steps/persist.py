"""Persist: the answer, its intent, score and diagnostics are stored before `done` is sent,
so a poller or a reloaded page finds what the stream showed."""

from __future__ import annotations

from dataclasses import replace

from ...models import Question
from .. import payloads
from ..answering import forget_stop
from ..context import Answered


def persist(answered: Answered) -> Answered:
    """Store the answer; returns it with its diagnostics (the `diagnostics` event)."""
    answered = replace(answered, diagnostics=payloads.diagnostics(answered))
    question = answered.question
    question.mark_done(
        answer=answered.answer, intent=answered.intent, best_score=answered.retrieval.best_score,
        diagnostics=answered.diagnostics,
    )  # fmt: skip
    if answered.stopped:  # the player stopped it: the partial answer is kept, marked as such
        Question.objects.filter(pk=question.pk).update(stopped=True)
        question.stopped = True
    forget_stop(question.pk)
    return answered
