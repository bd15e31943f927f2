"""A web process starts warm (oracle_site/warmup.py, issue 29): the threads its asks run on
exist before the first request — started from the event loop, each new thread stalled every
open stream until it ran — and what start-up loaded is kept out of the garbage collector's
full scans, which stopped the process for 100–180 ms each."""

import gc
import threading

from oracle_site.warmup import load_then_freeze
from runtime import executors


def pool_threads(prefix: str) -> set[str]:
    return {thread.name for thread in threading.enumerate() if thread.name.startswith(prefix + "-")}


def test_a_pool_started_ahead_runs_its_work_on_the_threads_it_started():
    pool = executors.DaemonPool(2, "ahead")
    pool.start_all()
    started = pool_threads("ahead")
    assert started == {"ahead-0", "ahead-1"}

    ran_on = {pool.submit(lambda: threading.current_thread().name).result(timeout=10) for _ in range(20)}

    assert ran_on <= started
    assert pool_threads("ahead") == started  # no thread was added by the work


def test_the_warm_up_starts_the_ask_threads_and_freezes_the_start_up_heap(settings):
    settings.ASK_SAVE_THREADS = 3  # pools of their own for this test, no thread started yet
    settings.STREAMS_SYNC_THREADS = 5
    assert executors.ask_save()._threads == [] and executors.stream_sync()._threads == []
    try:
        load_then_freeze()
        assert gc.get_freeze_count() > 50_000  # Django, the apps, the URLconf, the lexicon
    finally:
        gc.unfreeze()

    assert len(executors.ask_save()._threads) == 3 and len(executors.stream_sync()._threads) == 5
    assert {"ask-save-2", "stream-sync-4"} <= pool_threads("ask-save") | pool_threads("stream-sync")
