"""What the web process loads before its first request, then keeps out of the garbage
collector's way.

Loaded at start, in a thread (the server listens meanwhile): the URLconf — importing every
view module, ninja's routers and their schemas took ~0.45 s, paid by whichever request
came first — the bilingual lexicon (the first question asked across languages otherwise
waits for it), and the threads of the ask pools (`runtime.executors.start_web_pools`:
started from the event loop, each new thread stalled it until it ran).

Then `gc.freeze()`: the ~235k objects the process holds once started (Django, the apps,
the URLconf, the lexicon) move to a generation the collector never scans. Before this, each
full collection walked them all, 100–180 ms with every other thread stopped — every
stream's next event waited — and one fell inside a 50-stream burst at random (issue 29,
docs/reliability.md « Load »). After it, full collections scan only what was made since (~20 ms
under load). The one collection before the freeze (~120 ms) happens here, at start.

A frozen object that later becomes cyclic garbage is never reclaimed; what start loads lives
as long as the process, so nothing worth counting is lost.
"""

from __future__ import annotations

import gc
import logging
import threading
import time

log = logging.getLogger(__name__)
WARM = "web process warm"  # the log line's start (tests/support/daphne.py waits for it)


def load_then_freeze() -> None:
    from django.urls import get_resolver

    from runtime.components import lexicon
    from runtime.executors import start_web_pools

    started = time.perf_counter()
    get_resolver().url_patterns  # noqa: B018 - imports the URLconf
    lexicon()
    start_web_pools()
    gc.collect()
    gc.freeze()
    log.info("%s in %.1f s; %d objects frozen out of the collector's scans",
             WARM, time.perf_counter() - started, gc.get_freeze_count())  # fmt: skip


def start_warmup() -> threading.Thread:
    thread = threading.Thread(target=load_then_freeze, name="warmup", daemon=True)
    thread.start()
    return thread
