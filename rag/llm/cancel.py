"""Cancelling an LLM call from another thread: « Arrêter » pressed while the model is silent.

A backend's read blocks until the model writes, which may be a minute (it reads a page image,
the network hangs). A caller that must stop meanwhile reads the stream on a thread of its own
(`stream_in_background`) and, once stopped, cancels the call. For the time of its blocking
read every backend registers how to end it from outside (`on_cancel`): close the SSH channel
and kill the remote CLI, kill the local CLI, hang up the HTTP response. A cancelled call then
raises `AnswerStopped`, which no fall-back catches: no retry, no fall-back model, nothing keeps
running or spending quota.
"""

from __future__ import annotations

import contextvars
import logging
import queue
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from .base import AnswerStopped

log = logging.getLogger(__name__)

_DONE = object()


class Cancellation:
    """The « stop this call » of one stream read on another thread. Thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self._event = threading.Event()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        """Runs the registered callbacks on this thread (each ends one blocking read)."""
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback()
            except Exception:  # the others must still run; the call ends at its deadline anyway
                log.warning("cancelling an LLM call failed", exc_info=True)

    def wait(self, seconds: float) -> bool:
        return self._event.wait(seconds)

    def _add(self, callback: Callable[[], None]) -> bool:
        with self._lock:
            if self._event.is_set():
                return False
            self._callbacks.append(callback)
            return True

    def _remove(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


_current: contextvars.ContextVar[Cancellation | None] = contextvars.ContextVar("llm_cancellation", default=None)


@contextmanager
def on_cancel(callback: Callable[[], None]):
    """For the time of this block, a cancellation of the current call runs `callback` on the
    cancelling thread: it must be thread-safe and make the blocked read return. Outside
    `stream_in_background` nothing can cancel the call and this does nothing."""
    cancellation = _current.get()
    if cancellation is not None and not cancellation._add(callback):
        callback()  # cancelled before the read even started
    try:
        yield
    finally:
        if cancellation is not None:
            cancellation._remove(callback)


def cancelled() -> bool:
    cancellation = _current.get()
    return cancellation is not None and cancellation.cancelled


def raise_if_cancelled() -> None:
    """After a read that failed or ended early: a cancelled call is stopped, not failed."""
    if cancelled():
        raise AnswerStopped


def pause(seconds: float) -> None:
    """`time.sleep`, cut short by a cancellation (then `AnswerStopped`)."""
    cancellation = _current.get()
    if cancellation is None:
        time.sleep(seconds)
        return
    cancellation.wait(seconds)
    raise_if_cancelled()


def stream_in_background(start: Callable[[], Iterator[str]], *, stopped: Callable[[], bool],
                         poll_s: float) -> Iterator[str]:
    """The deltas of `start()` (a backend's `stream`), read on a thread of its own so that
    `stopped()` is looked at every `poll_s` even while the backend is silent. Once stopped, or
    when the caller leaves early, the call is cancelled and this raises `AnswerStopped`. The
    cancelling runs on its own thread: killing a remote CLI takes a moment the player need not
    wait for."""
    cancellation = Cancellation()
    chunks: queue.SimpleQueue = queue.SimpleQueue()
    threading.Thread(target=_read, args=(start, cancellation, chunks), name="llm-stream", daemon=True).start()
    finished = False
    try:
        while True:
            item = _next_item(chunks, stopped, poll_s)
            if item is _DONE or isinstance(item, BaseException):
                finished = True
                if item is _DONE:
                    return
                raise item
            yield item
    finally:
        if not finished:
            threading.Thread(target=cancellation.cancel, name="llm-cancel", daemon=True).start()


def _next_item(chunks: queue.SimpleQueue, stopped: Callable[[], bool], poll_s: float):
    while True:
        if stopped():
            raise AnswerStopped
        try:
            item = chunks.get(timeout=poll_s)
        except queue.Empty:
            continue
        if isinstance(item, str) and stopped():  # pressed while this delta was on its way
            raise AnswerStopped
        return item


def _read(start: Callable[[], Iterator[str]], cancellation: Cancellation, chunks: queue.SimpleQueue) -> None:
    """The reader thread: the backend's stream under `cancellation`, every delta to `chunks`,
    then `_DONE` or the exception it ended with."""
    _current.set(cancellation)  # this thread's own context: the backend's `on_cancel` finds it
    stream = None
    try:
        stream = start()
        for delta in stream:
            if cancellation.cancelled:
                break
            chunks.put(delta)
        chunks.put(_DONE)
    except BaseException as exc:  # handed to the caller, which raises it
        chunks.put(exc)
    finally:
        _close(stream)


def _close(stream) -> None:
    """A stream left early is closed at once: its subprocess, channel or response ends now."""
    close = getattr(stream, "close", None)
    if close is None:
        return
    try:
        close()
    except Exception:
        log.warning("closing a cancelled LLM stream failed", exc_info=True)
