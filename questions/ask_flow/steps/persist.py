"""Persist: the answer, its intent, score and diagnostics are stored before `done` is sent,
so a poller or a reloaded page finds what the stream showed."""

from __future__ import annotations

from ...models import Question
from .. import payloads
from ..context import AskContext
from ..answering import forget_stop


def persist(ctx: AskContext) -> None:
    ctx.diagnostics = payloads.diagnostics(ctx)
    ctx.question.mark_done(
        answer=ctx.answer, intent=ctx.intent, best_score=ctx.retrieval.best_score, diagnostics=ctx.diagnostics,
    )  # fmt: skip
    if ctx.stopped:  # the player stopped it: the partial answer is kept, marked as such
        Question.objects.filter(pk=ctx.question.pk).update(stopped=True)
        ctx.question.stopped = True
    forget_stop(ctx.question.pk)
