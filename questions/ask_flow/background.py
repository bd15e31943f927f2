"""Answering in the background: the answer is generated and saved even when the client that
asked has gone. The ask save pool stores the question if it is not yet (the ask stream's, whose
`meta` leaves first: issue 29) and vouches for it, then the ask answer pool answers it
(runtime/executors.py). Until it is stored, `unsaved(id)` has it, so `GET /api/ask/<id>`
answers 202 from the instant `meta` names it, and `storing(id)` the conversation it starts, so
a follow-up naming that conversation waits for its save."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from runtime import broadcast, executors, flags

from ..models import Conversation, Question
from . import answering as answers
from .answering import SoFar
from .context import Emit
from .flow import answer_question

log = logging.getLogger(__name__)


SNAPSHOT = "snapshot"  # on the live group only: what a listener of another process catches up from
SNAPSHOT_EVERY_S = 0.5


def streamed_so_far(question_id) -> SoFar:
    """Where the answer written by this process stands ((0, "", "", None) when none): a relay
    that subscribes late starts from there and skips the events up to `last_id`."""
    found = answers.live(question_id)
    return found.so_far() if found is not None else answers.NOTHING_YET


def publishing(question_id, emit: Emit | None = None) -> Emit:
    """An emitter that records every event of the answer in its `Answering` and publishes it to
    its live group (`broadcast.answer_group`: the chat's event relays listen there; ids 1,
    2, … in order), then hands it to `emit` (the JSON API's own stream), if any. Never raises.

    After each `phase` event, and after a `token` once SNAPSHOT_EVERY_S passed since the last
    one, it also publishes a `snapshot` ({text, phase, phase_key, context}: the answer so far, its last
    phase (its words and key) and the payload of its last `context` event, with the id of the last event it
    covers): a relay in another web process, which has no `streamed_so_far`, catches up from
    it (questions/chat_stream.py)."""
    group = broadcast.answer_group(question_id)
    answering = answers.answering_of(question_id)
    snapshot_at = [time.monotonic()]
    lock = threading.Lock()  # the ids and the publishing order stay together

    def publish_and_emit(name: str, data: dict) -> None:
        with lock:
            event_id = answering.record(name, data)
            broadcast.publish(group, name, data, event_id=event_id)
            now = time.monotonic()
            if name == "phase" or (name == "token" and now - snapshot_at[0] >= SNAPSHOT_EVERY_S):
                snapshot_at[0] = now
                so_far = answering.so_far()
                broadcast.publish(group, SNAPSHOT, {"text": so_far.text, "phase": so_far.phase, "phase_key": so_far.phase_key,
                                                      "context": so_far.context}, event_id=event_id)  # fmt: skip
        if name in answers.FINAL_EVENTS:
            answers.forget_unvouched(question_id)
        if emit is not None:
            emit(name, data)

    return publish_and_emit


_unsaved: dict[str, Question] = {}
_unsaved_lock = threading.Lock()
_storing: dict[str, Storing] = {}  # by conversation id; under _unsaved_lock too


@dataclass(frozen=True)
class Storing:
    """A new conversation the save pool is storing with its first question, and a future done
    once that save has ended (stored, or failed: its stream said so)."""

    conversation: Conversation
    saved: Future


def unsaved(question_id) -> Question | None:
    """A question of this process handed to `start_answering` and not stored yet (or never:
    its save failed, and its stream said so)."""
    with _unsaved_lock:
        return _unsaved.get(str(question_id))


def storing(conversation_id) -> Storing | None:
    """The new conversation `meta` named that this process has not stored yet: a follow-up
    naming it waits for its save (questions/api.py) instead of finding no row."""
    with _unsaved_lock:
        return _storing.get(str(conversation_id))


def _hold_unsaved(question: Question) -> None:
    with _unsaved_lock:
        _unsaved[str(question.pk)] = question
        # a conversation it starts is the unsaved object it was built with (never a query here:
        # the ask stream calls this from the event loop)
        conversation = question.conversation if Question.conversation.is_cached(question) else None
        if conversation is not None and conversation._state.adding:
            _storing[str(conversation.pk)] = Storing(conversation, Future())


def storing_key(conversation_id) -> str:
    return f"oracle-conversation:{conversation_id}:storing"


def owner_mark(user_id) -> str:
    """Who may continue a conversation being stored, as another process reads it: its
    player's id, "" for an anonymous visitor (questions.conversations.continuable)."""
    return str(user_id) if user_id is not None else ""


def _announce_storing(question_id) -> str | None:
    """Several web processes (REDIS_URL): the conversation this question starts is being
    stored, said in the shared cache (with its owner) until its save ends, so that a
    follow-up another process receives waits for it as this process's would (questions/api.py).
    Returns the flag's key, None when nothing was said. Run in the save pool, never in the
    event loop: `meta` does not wait for the cache."""
    if not settings.REDIS_URL:
        return None
    question = unsaved(question_id)
    pending = storing(question.conversation_id) if question is not None else None
    if pending is None:
        return None
    key = storing_key(pending.conversation.pk)
    flags.raise_flag(key, settings.ASK_FOLLOW_UP_WAIT_S + 5, owner_mark(pending.conversation.user_id))
    return key


def stored_elsewhere(conversation_id) -> str | None:
    """The owner mark of a conversation another process says it is storing, None when none
    is (raises nothing: a cache down reads as none)."""
    value = flags.flag_value(storing_key(conversation_id))
    return value if isinstance(value, str) else None


def _release_unsaved(question_id) -> None:
    with _unsaved_lock:
        question = _unsaved.pop(str(question_id), None)
        stored = _storing.pop(str(question.conversation_id), None) if question is not None else None
    if stored is not None:
        stored.saved.set_result(None)


def start_answering(question_id, emit: Emit | None = None, save: Callable[[], object] | None = None,
                    question: Question | None = None) -> Future:  # fmt: skip
    """Answer a question in the background; returns a future that completes once the answer is
    stored (or has failed). The answer goes on when nobody listens any more. `save` (with its
    unsaved `question`) stores it first, in the save pool. It then waits for one of
    ASK_MAX_CONCURRENT_ANSWERS threads of the answer pool; the question is vouched for
    meanwhile, so no recovery sweep fails it while it queues."""
    finished: Future = Future()
    answers.answering_of(question_id)  # registered now: a stop pressed while it queues is seen
    language = translation.get_language()  # the asker's: the Oracle's own words are in it
    emit = publishing(question_id, emit)
    if question is not None:
        _hold_unsaved(question)

    def answer() -> None:
        try:
            with translation.override(language):
                answer_question(question_id, emit)  # its registered `Answering` (answering_of)
        finally:
            answers.release(question_id)
            finished.set_result(None)

    def save_then_queue() -> None:
        announced = _announce_storing(question_id)
        with translation.override(language):
            ready = _saved(question_id, save, emit) and _vouched(question_id, emit)
        if announced:
            flags.lower_flag(announced)
        if ready:
            executors.ask_answer().submit(answer)
        else:
            finished.set_result(None)

    executors.ask_save().submit(save_then_queue)
    return finished


def _saved(question_id, save, emit: Emit) -> bool:
    """Store the question (`save`, if any); on failure only the listener can be told."""
    try:
        if save is not None:
            save()
        return True
    except Exception as exc:  # noqa: BLE001 - any failure of the database: the answer is not started
        return _not_started(question_id, emit, exc, "saved")
    finally:
        _release_unsaved(question_id)


def _vouched(question_id, emit: Emit) -> bool:
    """Vouch for the question (the shared cache may be down); on failure only the listener
    can be told."""
    try:
        answers.vouch(question_id)
        return True
    except Exception as exc:  # noqa: BLE001 - any failure of the cache: the answer is not started
        return _not_started(question_id, emit, exc, "vouched for")


def _not_started(question_id, emit: Emit, exc: Exception, what: str) -> bool:
    """The answer is not started: logged, released, and the listener told why; False."""
    log.exception("question %s could not be %s", question_id, what)
    answers.release(question_id)
    emit("error", {"message": gettext("L'Oracle n'a pas pu enregistrer la question. Réessayez dans un instant."),
                   "questionId": str(question_id)})  # fmt: skip
    return False
