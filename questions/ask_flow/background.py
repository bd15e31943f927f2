"""Answering in the background: the answer is generated and saved even when the client that
asked has gone. The Question is saved in the ask save pool, then answered in the ask answer
pool (runtime/executors.py)."""

from __future__ import annotations

import logging
from concurrent.futures import Future

from django.utils import translation
from django.utils.translation import gettext

from questions.recovery import answering, forget, vouch
from runtime import executors

from ..models import Question
from .context import Emit
from .flow import answer_question
from .intake import save_question

log = logging.getLogger(__name__)


def start_answering(question_id, emit: Emit, unsaved: tuple[Question, list] | None = None) -> Future:
    """Answer in the background; returns a future that completes once the answer is stored
    (or has failed). The answer goes on when nobody listens any more.

    `unsaved` (from `new_question`) is saved first, in the ask save pool, so the stream's
    `meta` event never waits for a database write (SQLite may be busy with an ingestion). The
    answer itself then waits for one of ASK_MAX_CONCURRENT_ANSWERS threads of the answer pool;
    the question is vouched for meanwhile, so no recovery sweep fails it while it queues."""
    finished: Future = Future()
    language = translation.get_language()  # the asker's: the Oracle's own words are in it

    def answer() -> None:
        try:
            with answering(question_id), translation.override(language):
                answer_question(question_id, emit)
        finally:
            finished.set_result(None)

    def save_then_queue() -> None:
        with translation.override(language):
            saved = _saved(question_id, unsaved, emit)
        if saved:
            executors.ask_answer().submit(answer)
        else:
            finished.set_result(None)

    executors.ask_save().submit(save_then_queue)
    return finished


def _saved(question_id, unsaved, emit: Emit) -> bool:
    """Vouch for the question and save it; on failure only the listener can be told."""
    try:
        vouch(question_id)
        if unsaved is not None:
            save_question(*unsaved)
        return True
    except Exception as exc:  # nothing stored
        log.exception("question %s could not be saved", question_id)
        forget(question_id)
        emit("error", {"message": gettext("L'Oracle n'a pas pu enregistrer la question : %(error)s") % {"error": exc},
                       "questionId": str(question_id)})  # fmt: skip
        return False
