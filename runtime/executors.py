"""Every thread pool of a process, by name: the one place that decides what runs beside what
(docs/architecture.md, « Layers »). Sizes come from settings (docs/configuration.md).

- `ask_setup()` (ASK_SETUP_THREADS): the short database reads of an ask request before its
  `meta` event — the token check, the game lookup, the rate limits. Never queued behind
  answers, nor behind Django's thread-sensitive thread, nor behind saves. With 0, they run on
  the request's own thread, as Django does (`setup_async`).
- `ask_save()` (ASK_SAVE_THREADS): saving each Question row right after its `meta` event (and
  a token's `last_used_at`). Writes wait for SQLite's single writer lock anyway; kept apart so
  the reads of the next requests do not queue behind them.
- `ask_answer()` (ASK_MAX_CONCURRENT_ANSWERS): embedding, retrieval and the answer itself.
  More questions than threads wait in its queue (their streams get heartbeats meanwhile);
  fifty answers at once on two cores starve the event loop that sends every stream's events.
- `ask_steps()` (ASK_STEP_THREADS): classification, HyDE and a follow-up's rewrite, run beside
  retrieval.
- `llm_calls()` (LLM_CALL_THREADS): single LLM calls awaited with a deadline
  (`rag.hyde.call_with_timeout`); a call that overruns is abandoned, not waited for.
- `retrieve_fanout()` (RETRIEVE_THREADS): the dense and BM25 searches of one retrieval.
- `on_request_thread(fn)`: Django's thread-sensitive thread, for middleware hooks that may
  touch the database (oracle_site/async_middleware.py).
- `stream_sync()` (STREAMS_SYNC_THREADS): that thread-sensitive work for every open event
  stream at once (oracle_site/stream_cap.py). Django gives each request a thread of its own
  for its whole life, so each open stream once parked one (issue 29); a stream's synchronous
  steps (Django's signals and middleware hooks, a session read, a job's new events) are short
  and one at a time, so the streams share a few threads and queue for them.

Threads are daemons: stopping the web process does not wait for queued work; the recovery
sweep of a live process fails what was left pending. Each job runs between
`close_old_connections()` calls, so a thread's database connection is closed after its job
unless DATABASE_CONN_MAX_AGE keeps it (bounded by the pool's size). A pool nested in another
(retrieval inside an answer) has its own threads: no pool waits on its own queue.
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
        self._add_threads(1)
        return future

    def start_all(self) -> None:
        """Start every thread now. `Thread.start` waits until the new thread runs, so a pool
        grown from the event loop stalls it: 54 ms once, under a 50-stream burst (issue 29)."""
        self._add_threads(self.size)

    def _add_threads(self, count: int) -> None:
        with self._lock:
            for _ in range(min(count, self.size - len(self._threads))):
                thread = threading.Thread(target=self._work, name=f"{self.name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()

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


def named(name: str, size: int) -> DaemonPool:
    """One pool per name and size (a changed setting gets a new pool; the old one drains)."""
    with _pools_lock:
        key = (name, max(1, size))
        if key not in _pools:
            _pools[key] = DaemonPool(size, name)
        return _pools[key]


def ask_setup() -> DaemonPool:
    return named("ask-setup", settings.ASK_SETUP_THREADS)


def ask_save() -> DaemonPool:
    return named("ask-save", settings.ASK_SAVE_THREADS)


def ask_answer() -> DaemonPool:
    return named("ask-answer", settings.ASK_MAX_CONCURRENT_ANSWERS)


def ask_steps() -> DaemonPool:
    return named("ask-steps", settings.ASK_STEP_THREADS)


def llm_calls() -> DaemonPool:
    return named("llm-call", settings.LLM_CALL_THREADS)


def retrieve_fanout() -> DaemonPool:
    return named("retrieve", settings.RETRIEVE_THREADS)


def stream_sync() -> DaemonPool:
    return named("stream-sync", settings.STREAMS_SYNC_THREADS)


def start_web_pools() -> None:
    """Start the threads of the pools a web process's requests use (oracle_site/warmup.py)."""
    for pool in (ask_setup(), ask_save(), ask_answer(), ask_steps(), retrieve_fanout(), stream_sync()):
        pool.start_all()


def setup_async(fn):
    """`fn` as a coroutine function run in the ask setup pool; with ASK_SETUP_THREADS=0, on
    the request's own thread as Django does (the in-process test client then sees the rows of
    the test's transaction)."""
    if settings.ASK_SETUP_THREADS <= 0:
        return sync_to_async(fn, thread_sensitive=True)
    return sync_to_async(fn, thread_sensitive=False, executor=ask_setup())


def on_request_thread(fn):
    """`fn` as a coroutine function run on Django's thread-sensitive thread."""
    return sync_to_async(fn, thread_sensitive=True)
