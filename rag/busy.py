"""A cross-process « a question is being answered » signal, so that ingestion embeds with
every core while nobody asks and falls back to one thread the moment somebody does.

The web process and the django-q2 workers are separate processes that share the machine's
cores (DESIGN.md, measured facts: a query must never wait on an embedding that took the
cores). The asking side touches a file; the embedding loop reads its modification time
between batches. A file, not the cache: it works the same with the file cache, Redis or
none, costs one `utime` per question, and a crashed web process leaves a stamp that simply
expires after `ttl_s`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

MARK_EVERY_S = 1.0  # a burst of queries touches the file once


class AskingSignal:
    def __init__(self, path: str | Path, ttl_s: float = 20.0):
        self.path = Path(path)
        self.ttl_s = ttl_s
        self._last_mark = 0.0

    def mark(self) -> None:
        """A question is being answered now (call at its start; cheap, never raises)."""
        now = time.time()
        if now - self._last_mark < MARK_EVERY_S:
            return
        self._last_mark = now
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch()
            os.utime(self.path, (now, now))
        except OSError:
            pass  # a read-only var/ costs ingestion speed, never a question

    def active(self) -> bool:
        """Was a question started in the last `ttl_s` seconds (by any process)?"""
        try:
            return time.time() - self.path.stat().st_mtime < self.ttl_s
        except OSError:
            return False


def spare_cores() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class ThreadPlan:
    """How many threads the next embedding batch may use: `idle` while nobody asks, 1 while
    somebody does."""

    def __init__(self, signal: AskingSignal | None, idle: int = 0):
        self.signal = signal
        self.idle = idle if idle > 0 else spare_cores()

    def threads(self) -> int:
        if self.signal is not None and self.signal.active():
            return 1
        return self.idle
