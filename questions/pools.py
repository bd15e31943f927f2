"""The three thread pools of the ask flow in a web process.

- `setup_pool()` (ASK_SETUP_THREADS): the short database reads of a request before its
  `meta` event — the token check, the game lookup. Never queued behind answers, nor behind
  Django's thread-sensitive thread, nor behind saves.
- `save_pool()` (SAVE_THREADS): saving each Question row right after its `meta` event (and a
  token's `last_used_at`). Writes wait for SQLite's single writer lock anyway; kept apart so
  the reads of the next requests do not queue behind them.
- `answer_pool()` (ASK_MAX_CONCURRENT_ANSWERS): embedding, retrieval and the answer itself.
  More questions than threads wait in its queue (their streams get heartbeats meanwhile);
  fifty answers at once on two cores starve the event loop that sends every stream's events.

Threads are daemons (as the former thread-per-answer was): stopping the web process does not
wait for queued answers; the recovery sweep of a live process fails what was left pending.
Each job runs between `close_old_connections()` calls, so a thread's database connection is
closed after its job unless DATABASE_CONN_MAX_AGE keeps it (bounded by the pool's size).
"""

from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Executor, Future

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)


class DaemonPool(Executor):
    """A fixed number of daemon threads behind a FIFO queue (threads start on demand)."""

    def __init__(self, size: int, name: str):
        self.size = max(1, size)
        self.name = name
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        self._queue.put((future, fn, args, kwargs))
        with self._lock:
            if len(self._threads) < self.size:
                thread = threading.Thread(target=self._work, name=f"{self.name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
        return future

    def _work(self) -> None:
        while True:
            future, fn, args, kwargs = self._queue.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                close_old_connections()
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # handed to whoever awaits the future
                future.set_exception(exc)
            finally:
                try:
                    close_old_connections()
                except Exception:
                    log.warning("closing the database connection of %s failed", self.name, exc_info=True)


_pools: dict[tuple[str, int], DaemonPool] = {}
_pools_lock = threading.Lock()


def _pool(name: str, size: int) -> DaemonPool:
    """One pool per name and size (a changed setting gets a new pool; the old one drains)."""
    with _pools_lock:
        key = (name, max(1, size))
        if key not in _pools:
            _pools[key] = DaemonPool(size, name)
        return _pools[key]


def setup_pool() -> DaemonPool:
    return _pool("ask-setup", settings.ASK_SETUP_THREADS)


def in_setup_pool(fn):
    """`fn` as a coroutine function run in the setup pool; with ASK_SETUP_THREADS=0 (the
    default under pytest), on the request's own thread as Django does, so the in-process test
    client sees the rows of the test's transaction."""
    if settings.ASK_SETUP_THREADS <= 0:
        return sync_to_async(fn, thread_sensitive=True)
    return sync_to_async(fn, thread_sensitive=False, executor=setup_pool())


SAVE_THREADS = 2


def save_pool() -> DaemonPool:
    return _pool("ask-save", SAVE_THREADS)


def answer_pool() -> DaemonPool:
    return _pool("ask-answer", settings.ASK_MAX_CONCURRENT_ANSWERS)
