"""Stopping an answer: the player's « Arrêter » sets a per-question signal that the answer step
checks before each LLM call and between streamed tokens. The signal lives in this process (seen
at once) and in the cache (seen by another web process sharing it, read at most every
CHECK_EVERY_S)."""

from __future__ import annotations

import threading
import time

from django.core.cache import cache

from rag.llm.base import AnswerStopped

CHECK_EVERY_S = 0.3
KEEP_S = 600
_lock = threading.Lock()
_stopped: set[str] = set()


def _key(question_id) -> str:
    return f"oracle.ask-stop.{question_id}"


def request_stop(question_id) -> None:
    with _lock:
        _stopped.add(str(question_id))
    try:
        cache.set(_key(question_id), True, KEEP_S)
    except Exception:  # the local signal still stops an answer of this process
        pass


def forget_stop(question_id) -> None:
    with _lock:
        _stopped.discard(str(question_id))


class StopSignal:
    """Asked `stopped()` between tokens: True once the player stopped this question."""

    def __init__(self, question_id):
        self.question_id = str(question_id)
        self._checked_at = 0.0
        self._seen = False

    def stopped(self) -> bool:
        if self._seen:
            return True
        with _lock:
            self._seen = self.question_id in _stopped
        now = time.monotonic()
        if not self._seen and now - self._checked_at >= CHECK_EVERY_S:
            self._checked_at = now
            try:
                self._seen = bool(cache.get(_key(self.question_id)))
            except Exception:
                pass
        return self._seen


class StoppableLLM:
    """An LLM backend whose calls end with `AnswerStopped` once the player pressed « Arrêter »:
    checked before each call starts (a stop pressed while the deck is prepared launches no
    paid call), after each `complete`, and between streamed tokens. The deck builders
    (games.deck_requests, games.deck_phase1) call it through code that knows nothing of
    stopping: `AnswerStopped` is a BaseException, so rag's `except Exception` fall-backs
    let it through, and the answer step catches it."""

    def __init__(self, llm, question_id):
        self._llm = llm
        self._stop = StopSignal(question_id)

    def __getattr__(self, name):  # name, available, health…: the backend's own
        return getattr(self._llm, name)

    def _check(self) -> None:
        if self._stop.stopped():
            raise AnswerStopped

    def stream(self, *args, **kwargs):
        self._check()  # a generator: runs at the first token asked, before the backend is called
        deltas = self._llm.stream(*args, **kwargs)
        try:
            for delta in deltas:
                self._check()
                yield delta
        finally:
            close = getattr(deltas, "close", None)
            if close is not None:
                close()  # a subprocess or HTTP stream is ended, not left to the collector

    def complete(self, *args, **kwargs):
        self._check()
        text = self._llm.complete(*args, **kwargs)
        self._check()  # stopped during the call: its result starts nothing more
        return text
