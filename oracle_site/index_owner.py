"""The web process owns the local Qdrant folder (DESIGN.md, decision 2): it brings the
index up to date from the chunk rows at start and whenever writers mark a collection as
changed. A daemon thread polls `IndexState` (one small query) every few seconds, so the
first question after an ingest does not pay for the sync."""

import logging
import threading

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)
_started = False
_lock = threading.Lock()


def sync_now() -> list[dict]:
    from games.indexing import sync_if_changed

    from . import components

    return sync_if_changed(components.vector_store())


def _loop(interval: float, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            close_old_connections()
            sync_now()
        except Exception:  # keep the owner alive: the next round retries
            log.exception("index sync failed")
        finally:
            close_old_connections()
        stop.wait(interval)


def start_index_owner() -> threading.Event | None:
    """Start the sync thread once per process; returns its stop event."""
    global _started
    interval = settings.INDEX_SYNC_INTERVAL_S
    with _lock:
        if _started or interval <= 0:
            return None
        _started = True
    stop = threading.Event()
    threading.Thread(target=_loop, args=(interval, stop), name="index-owner", daemon=True).start()
    return stop
