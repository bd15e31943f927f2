"""Background work of a web process repeated every few seconds (index sync, recovery sweep)."""

import logging
import threading
from typing import Callable

from django.db import close_old_connections

log = logging.getLogger(__name__)
_started: set[str] = set()
_lock = threading.Lock()


def _loop(name: str, work: Callable[[], object], interval: float, stop: threading.Event) -> None:
    while True:
        try:
            close_old_connections()
            work()
        except Exception:  # keep the thread alive: the next round retries
            log.exception("%s failed", name)
        finally:
            close_old_connections()
        if stop.wait(interval):
            return


def start_periodic(name: str, work: Callable[[], object], interval: float) -> threading.Event | None:
    """Run `work` now and every `interval` seconds, once per process; returns the stop event."""
    with _lock:
        if name in _started or interval <= 0:
            return None
        _started.add(name)
    stop = threading.Event()
    threading.Thread(target=_loop, args=(name, work, interval, stop), name=name, daemon=True).start()
    return stop
