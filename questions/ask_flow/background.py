"""Answering in the background: the answer is generated and saved even when the client that
asked has gone. The Question is saved in the ask save pool, then answered in the ask answer
pool (runtime/executors.py)."""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from typing import NamedTuple

from django.utils import translation
from django.utils.translation import gettext

from questions.recovery import answering, forget, vouch
from runtime import executors, live_events

from ..models import Question
from .context import Emit
from .flow import answer_question
from .intake import save_question

log = logging.getLogger(__name__)


SNAPSHOT = "snapshot"  # on the live group only: what a listener of another process catches up from
SNAPSHOT_EVERY_S = 0.5

_streamed_lock = threading.Lock()
# answers being written in this process: (last event id, token texts, last phase label, last context payload)
_streamed: dict[str, tuple[int, list[str], str, dict | None]] = {}


class SoFar(NamedTuple):
    last_id: int  # the id of the last event published for the answer by this process
    text: str  # what its tokens carried so far
    phase: str  # the last phase's label
    context: dict | None  # the last `context` event's payload (the passages), None before it


def streamed_so_far(question_id) -> SoFar:
    """Where the answer written by this process stands ((0, "", "", None) when none): a relay
    that subscribes late starts from there and skips the events up to `last_id`."""
    with _streamed_lock:
        last_id, parts, phase, context = _streamed.get(str(question_id), (0, [], "", None))
        return SoFar(last_id, "".join(parts), phase, context)


def publishing(question_id, emit: Emit | None = None) -> Emit:
    """An emitter that publishes every event of the answer to its live group
    (`live_events.answer_group`: the chat's event relays listen there; ids 1, 2, … in order),
    then hands it to `emit` (the JSON API's own stream), if any. Never raises.

    After each `phase` event, and after a `token` once SNAPSHOT_EVERY_S passed since the last
    one, it also publishes a `snapshot` ({text, phase, context}: the answer so far, its last
    phase and the payload of its last `context` event, with the id of the last event it
    covers): a relay in another web process, which has no `streamed_so_far`, catches up from
    it (questions/chat_events.py)."""
    group = live_events.answer_group(question_id)
    key = str(question_id)
    snapshot_at = [time.monotonic()]

    def publish_and_emit(name: str, data: dict) -> None:
        with _streamed_lock:
            last_id, parts, phase, context = _streamed.get(key, (0, [], "", None))
            if name == "token":
                parts.append(data.get("text", ""))
            elif name == "phase":
                phase = data.get("label", "")
            elif name == "context":
                context = data
            if name in ("done", "error"):
                _streamed.pop(key, None)
            else:
                _streamed[key] = (last_id + 1, parts, phase, context)
            live_events.publish(group, name, data, event_id=last_id + 1)
            now = time.monotonic()
            if name == "phase" or (name == "token" and now - snapshot_at[0] >= SNAPSHOT_EVERY_S):
                snapshot_at[0] = now
                so_far = {"text": "".join(parts), "phase": phase, "context": context}
                live_events.publish(group, SNAPSHOT, so_far, event_id=last_id + 1)
        if emit is not None:
            emit(name, data)

    return publish_and_emit


def start_answering(question_id, emit: Emit | None = None, unsaved: tuple[Question, list] | None = None) -> Future:
    """Answer in the background; returns a future that completes once the answer is stored
    (or has failed). The answer goes on when nobody listens any more.

    `unsaved` (from `new_question`) is saved first, in the ask save pool, so the stream's
    `meta` event never waits for a database write (SQLite may be busy with an ingestion). The
    answer itself then waits for one of ASK_MAX_CONCURRENT_ANSWERS threads of the answer pool;
    the question is vouched for meanwhile, so no recovery sweep fails it while it queues."""
    finished: Future = Future()
    language = translation.get_language()  # the asker's: the Oracle's own words are in it
    emit = publishing(question_id, emit)

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
