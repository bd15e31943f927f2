"""The ask flow, top to bottom (docs/architecture.md, « question → answer »): resolve →
classify, HyDE and a follow-up's rewrite (beside the retrieval) → retrieve (and rerank) → route by intent → answer → persist.
Each step reports through `emit(event, data)`: phase, context, token…, diagnostics, done.

`answer_question` never raises: a failure marks the Question failed with a readable message
and emits `error`, so a poller never waits on a question that is pending forever, and a
stream gets its `error` even when the database cannot store the failure.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from django.utils.translation import gettext, gettext_noop

from ..models import Question
from . import answering as answers
from . import payloads
from .answering import Answering
from .context import Answered, AskContext, Emit, wants_deck
from .steps.answer_deck import answer_with_deck
from .steps.answer_rules import answer_from_rules
from .steps.persist import persist
from .steps.resolve import resolve
from .steps.retrieve import retrieve_passages, sync_index
from .steps.route import route_by_intent
from .steps.understand import await_hyde, await_intent, start_understanding

log = logging.getLogger(__name__)


def answer_question(question_id, emit: Emit, answering: Answering | None = None) -> None:
    """Answer a stored question, emitting phase/context/token/diagnostics/done (or error).
    Its live state is this process's `Answering` of the question: the one registered when it
    was queued (ask_flow/background.py), else (`manage.py ask`) one for the time of this call."""
    answering = answering or answers.answering_of(question_id)
    try:
        question = Question.objects.select_related("game").get(pk=question_id)
        run(AskContext(question=question, emit=emit, answering=answering))
    except Exception:  # turned into a readable, persisted failure
        log.exception("question %s failed", question_id)
        # the player reads a sentence, not the exception (a database's or a library's words, in English)
        failed = gettext_noop("L'Oracle n'a pas pu répondre à cette question. Réessayez dans un instant.")
        message = gettext(failed)
        try:  # its msgid: a page in another language translates it (Question.error_message)
            Question.objects.filter(pk=question_id).mark_failed(failed)
        except Exception:  # the database itself failing (locked, gone): the stream still ends;
            # the row, no longer vouched for, is failed by the recovery sweep (questions/recovery.py)
            log.exception("question %s: its failure could not be stored", question_id)
        emit("error", {"message": message, "questionId": str(question_id)})
    finally:
        answers.forget_unvouched(question_id)


def run(ctx: AskContext) -> None:
    """The steps in order; each takes what it needs and returns what it found."""
    step = ctx.timer.done
    ctx.emit("phase", payloads.phase("weigh"))
    resolved = resolve(ctx.question)
    understanding = start_understanding(ctx.question, resolved.llm)
    step("resolve")

    ctx.emit("phase", payloads.phase("dive"))
    store = sync_index(resolved.booklets)
    step("index_sync")
    hyde = await_hyde(understanding)
    step("hyde")
    found = retrieve_passages(ctx, resolved, store, hyde, understanding)
    step("retrieval")
    intent = await_intent(understanding)
    step("classify")
    chunks = route_by_intent(ctx, intent, found.retrieval, store, resolved.llm)
    answered = Answered(question=ctx.question, timer=ctx.timer, resolved=resolved, found=found, intent=intent, chunks=chunks)
    ctx.emit("context", payloads.context(answered))

    ctx.emit("phase", payloads.phase("write"))
    if wants_deck(intent):
        answer = answer_with_deck(ctx, resolved)
    else:
        answer = answer_from_rules(ctx, resolved, found, chunks)
    step("answer")

    answered = persist(replace(answered, answer=answer.text, stopped=answer.stopped, done_extra=answer.done_extra))
    ctx.emit("diagnostics", answered.diagnostics)
    ctx.emit("done", payloads.done(answered))
