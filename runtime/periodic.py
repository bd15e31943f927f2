"""Background work repeated every few seconds in a web process (index sync, recovery sweeps),
and work run once when a django-q2 cluster worker starts.

Apps register their work from `AppConfig.ready()` (`every_web_process`, `at_worker_start`);
the ASGI entry point starts the registered web work (`start_web_work`): a management command
or a worker imports the apps too, but must not start web threads.
"""

import logging
import threading
from typing import Callable

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)
_started: set[str] = set()
_lock = threading.Lock()
_web_work: dict[str, tuple[Callable[[], object], str]] = {}


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


def every_web_process(name: str, work: Callable[[], object], interval_setting: str) -> None:
    """Register `work` to run in each web process at start and then every
    `settings.<interval_setting>` seconds (read when the process starts)."""
    _web_work[name] = (work, interval_setting)


def start_web_work() -> dict[str, threading.Event | None]:
    """Start every registered web work (the ASGI entry point calls this once)."""
    return {name: start_periodic(name, work, getattr(settings, setting)) for name, (work, setting) in list(_web_work.items())}


def is_worker_start(proc_name: str) -> bool:
    """Whether a django-q2 `post_spawn` comes from a cluster worker that just started.

    django-q2's sync mode (Q_SYNC, the tests) runs every task through `worker()` in the
    calling process, which sends post_spawn each time with proc_name "MainProcess": that is
    no start-up, and the start-up work must not run around every inline task."""
    return bool(proc_name) and proc_name != "MainProcess"


def at_worker_start(work: Callable[[], object], uid: str) -> None:
    """Run `work` each time a django-q2 cluster worker starts (not around inline tasks)."""
    from django_q.signals import post_spawn

    def on_spawn(proc_name: str = "", **_signal_kwargs) -> None:
        if is_worker_start(proc_name):
            work()

    post_spawn.connect(on_spawn, dispatch_uid=uid, weak=False)
