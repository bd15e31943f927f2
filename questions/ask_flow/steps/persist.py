"""Persist: the answer, its intent, score and diagnostics are stored before `done` is sent,
so a poller or a reloaded page finds what the stream showed (a deck answer's own bestScore and
sticky cards included)."""

from __future__ import annotations

from dataclasses import replace

from ...models import Question
from .. import payloads
from ..answering import forget_stop
from ..context import Answered


def persist(answered: Answered) -> Answered:
    """Store the answer; returns it with its diagnostics (the `diagnostics` event)."""
    answered = replace(answered, diagnostics=payloads.diagnostics(answered))
    done_extra = answered.done_extra
    # a deck answer's `done` says its own bestScore and sticky cards (its deck's among them):
    # stored as said, a poller and the next turn read the same (Question.sticky_cards_after)
    best_score = done_extra["bestScore"] if "bestScore" in done_extra else answered.retrieval.best_score
    if "stickyCardMentions" in done_extra:
        answered = replace(answered, diagnostics={**answered.diagnostics, "stickyCardMentions": done_extra["stickyCardMentions"]})
    question = answered.question
    question.mark_done(
        answer=answered.answer, intent=answered.intent, best_score=best_score, diagnostics=answered.diagnostics,
    )  # fmt: skip
    if answered.stopped:  # the player stopped it: the partial answer is kept, marked as such
        Question.objects.filter(pk=question.pk).update(stopped=True)
        question.stopped = True
    forget_stop(question.pk)
    return answered
