"""One question being answered by this web process, in one object: its stop flag, the text it
streamed so far, and its in-flight mark (its vouch) that keeps the recovery sweep of any
process from failing it (questions/recovery.py).

An `Answering` is registered when the question is vouched for (queued for the answer pool,
ask_flow/background.py) or when its answer starts, and carried through the flow on the
`AskContext`: the answer steps ask it `stopped()`; the publisher records each event in it
(`record`); a late listener of this process reads `so_far()`. What another process must see —
« stop », « in flight » — is also a flag of runtime/flags.py under the question's one key prefix.
"""

from __future__ import annotations

import threading
import time
from typing import NamedTuple

from django.conf import settings

from runtime import flags, process_identity

FINAL_EVENTS = ("done", "error")
CHECK_EVERY_S = 0.3  # how often a stop pressed in another process is looked for
STOP_KEEP_S = 600


def key(question_id, what: str) -> str:
    return f"oracle-answer:{question_id}:{what}"


def in_flight_ttl() -> float:
    return max(settings.RECOVERY_SWEEP_INTERVAL_S, 1) * 3 + 5


class SoFar(NamedTuple):
    last_id: int  # the id of the last event published for the answer by this process
    text: str  # what its tokens carried so far
    phase: str  # the last phase's label
    context: dict | None  # the last `context` event's payload (the passages), None before it
    phase_key: str = ""  # the last phase's key (payloads.PHASES): the chat shows « Arrêter » from « write » on


class Answering:
    """The live state of one answer in this process. Thread-safe: the answering thread records
    and checks; request threads stop it and read what it streamed."""

    def __init__(self, question_id):
        self.question_id = str(question_id)
        self.vouched = False
        self._lock = threading.Lock()
        self._stopped = False
        self._stop_checked_at = 0.0
        self._last_id, self._parts, self._phase, self._context, self._phase_key = 0, [], "", None, ""

    # --- stopping (« Arrêter ») -----------------------------------------------------------
    def stop(self) -> None:
        self._stopped = True

    def stopped(self) -> bool:
        """True once the player stopped this answer here or in another process (looked up in
        the shared cache at most every CHECK_EVERY_S)."""
        if self._stopped:
            return True
        now = time.monotonic()
        if now - self._stop_checked_at >= CHECK_EVERY_S:
            self._stop_checked_at = now
            self._stopped = flags.flag_is_up(key(self.question_id, "stop"))
        return self._stopped

    # --- what was streamed -----------------------------------------------------------------
    def record(self, name: str, data: dict) -> int:
        """Note one event of the answer; returns its id (1, 2, … in order). After the final
        one (`done`, `error`) nothing is kept: a late listener reads the stored answer."""
        with self._lock:
            if name in FINAL_EVENTS:
                final_id = self._last_id + 1
                self._last_id, self._parts, self._phase, self._context, self._phase_key = 0, [], "", None, ""
                return final_id
            if name == "token":
                self._parts.append(data.get("text", ""))
            elif name == "phase":
                self._phase, self._phase_key = data.get("label", ""), data.get("key", "")
            elif name == "context":
                self._context = data
            self._last_id += 1
            return self._last_id

    def so_far(self) -> SoFar:
        with self._lock:
            return SoFar(self._last_id, "".join(self._parts), self._phase, self._context, self._phase_key)


_live: dict[str, Answering] = {}
_live_lock = threading.Lock()
NOTHING_YET = SoFar(0, "", "", None)


def live(question_id) -> Answering | None:
    """The answer of this question in this process, if one is under way or queued."""
    with _live_lock:
        return _live.get(str(question_id))


def answering_of(question_id) -> Answering:
    """This process's `Answering` of the question, registered if it was not."""
    with _live_lock:
        return _live.setdefault(str(question_id), Answering(question_id))


def vouch(question_id) -> Answering:
    """From now on this process answers the question (queued too): the sweep of every process
    leaves it alone until `release`."""
    answering = answering_of(question_id)
    answering.vouched = True
    flags.raise_flag(key(answering.question_id, "in-flight"), in_flight_ttl(), process_identity.this_process())
    return answering


def forget_unvouched(question_id) -> None:
    """The answer's final event left: an answer nobody vouched for (answered on the caller's
    thread: `manage.py ask`, a test) is forgotten now; a vouched one when its thread ends."""
    with _live_lock:
        answering = _live.get(str(question_id))
        if answering is not None and not answering.vouched:
            _live.pop(str(question_id), None)


def release(question_id) -> None:
    """The answer is over (stored, failed or never started): forget it here and everywhere."""
    with _live_lock:
        _live.pop(str(question_id), None)
    flags.lower_flag(key(question_id, "in-flight"))
    flags.lower_flag(key(question_id, "stop"))


def request_stop(question_id) -> None:
    """« Arrêter »: this process's answer stops at once; another process's at its next check."""
    answering = live(question_id)
    if answering is not None:
        answering.stop()
    flags.raise_flag(key(question_id, "stop"), STOP_KEEP_S)


def forget_stop(question_id) -> None:
    """The stop of this question is no longer asked for (its answer is stored)."""
    answering = live(question_id)
    if answering is not None:
        answering._stopped = False
    flags.lower_flag(key(question_id, "stop"))


def refresh_vouchers() -> None:
    """Each recovery sweep: the vouchers of the questions this process answers live on."""
    with _live_lock:
        alive = [answering.question_id for answering in _live.values() if answering.vouched]
    flags.raise_flags((key(qid, "in-flight") for qid in alive), in_flight_ttl(), process_identity.this_process())


def vouchers(question_ids) -> dict[str, bool]:
    """Of the ids some process vouches for: whether that process may still answer (True), or
    is known to have stopped (False: a process of this machine that no longer runs, e.g. the
    web process before a restart; its mark would otherwise live out its TTL). Ids nobody
    vouches for are left out. Raises when the shared cache cannot be read."""
    keys = {key(qid, "in-flight"): str(qid) for qid in question_ids}
    return {keys[found]: not process_identity.is_gone(owner) for found, owner in flags.flag_values(keys).items()}
