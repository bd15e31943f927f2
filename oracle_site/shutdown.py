"""daphne exits within SHUTDOWN_GRACE_S of SIGTERM (or Ctrl-C), whatever is still running.

daphne stops by cancelling every open request and waiting for all of them to end, then
Python joins the executor threads: a request waiting for a sync call (asgiref lets the thread
finish) or a thread busy in native code kept a stopped web process alive — and with it the
Qdrant Edge folder's lock, so the restarted process could not open the index. Nothing in the
web process is lost by exiting: a question still being answered is failed readably by the
recovery sweep of the next process, ingestion runs in the worker. When the stop begins, a
timer is armed; if the process is still there after the grace period, it exits at once (the
kernel releases the folder lock with it).
"""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger(__name__)


def arm_on_shutdown() -> None:
    """Under daphne (its reactor is installed before the application is imported): arm the
    timer when the reactor begins to shut down. Nothing under another server or in tests."""
    if "daphne.server" not in sys.modules:
        return
    from twisted.internet import reactor

    reactor.addSystemEventTrigger("before", "shutdown", _arm_deadline)


def _arm_deadline() -> None:
    from django.conf import settings

    grace = settings.SHUTDOWN_GRACE_S
    stop = threading.Event()

    def deadline():
        if stop.wait(grace):
            return
        log.warning("still running %.0f s after the stop signal: exiting now", grace)
        for handler in logging.getLogger().handlers:
            handler.flush()
        os._exit(0)

    threading.Thread(target=deadline, name="shutdown-deadline", daemon=True).start()
