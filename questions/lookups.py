"""What a web process remembers for a few seconds between asks: the API tokens and the games
it has just looked up (ASK_LOOKUP_CACHE_S; 0 turns it off).

With them, a stream's `meta` needs no database round trip when the same client asks again or
another player asks about the same game; simultaneous lookups of one key are made once
(`coalesced`). Saving or deleting a token, a user or a game in this process forgets
everything at once and again when the transaction commits, and a lookup that was reading
meanwhile is not remembered (signals, `questions.apps`); another web process notices within
ASK_LOOKUP_CACHE_S (a token revoked through the admin of process A still works for at most
that long on process B). Only successful lookups are kept.
"""

from __future__ import annotations

import asyncio
import threading
import time

from django.conf import settings
from django.db import transaction

from runtime import executors

MAX_ENTRIES = 10_000


class LookupCache:
    def __init__(self):
        self._data: dict = {}
        self._lock = threading.Lock()
        self.generation = 0  # bumped by every clear (`load`)

    def get(self, key):
        entry = self._data.get(key)
        if entry is None or entry[0] < time.monotonic():
            return None
        return entry[1]

    def load(self, key, fetch):
        """`fetch()`, remembered under `key` when found, unless the cache was cleared while it
        read: a row changed meanwhile (a token revoked) would be remembered as it was."""
        generation = self.generation
        value = fetch()
        if value is not None:
            self._put(key, value, generation)
        return value

    def _put(self, key, value, generation: int) -> None:
        ttl = settings.ASK_LOOKUP_CACHE_S
        if ttl <= 0:
            return
        with self._lock:
            if generation != self.generation:
                return
            if len(self._data) >= MAX_ENTRIES:
                self._data.clear()
            self._data[key] = (time.monotonic() + ttl, value)

    def clear(self, **_signal_kwargs) -> None:
        with self._lock:
            self._data.clear()
            self.generation += 1

    def clear_now_and_on_commit(self, using=None, **_signal_kwargs) -> None:
        """A row saved inside a transaction (the admin's, a deactivation revoking the user's
        tokens) is still the old one for every other connection until it commits: a lookup in
        that window would remember the old row for ASK_LOOKUP_CACHE_S, so forget again then."""
        self.clear()
        transaction.on_commit(self.clear, using=using)


tokens = LookupCache()  # key hash -> (ApiToken without its key, its user)
games = LookupCache()  # game id -> Game


_pending: dict = {}  # (event loop, key) -> the lookup in progress


async def coalesced(key, fn, *args):
    """`fn(*args)` run in the ask setup pool, once for all the requests of this event loop
    that want the same key at the same time (fifty players asking about the same game at once
    make one lookup, not fifty)."""
    slot = (id(asyncio.get_running_loop()), key)
    future = _pending.get(slot)
    if future is None or future.get_loop() is not asyncio.get_running_loop():
        future = asyncio.ensure_future(executors.setup_async(fn)(*args))
        _pending[slot] = future
        future.add_done_callback(lambda _done: _pending.pop(slot, None))
    return await asyncio.shield(future)


def connect_signals() -> None:
    from django.contrib.auth import get_user_model
    from django.db.models.signals import post_delete, post_save

    from games.models import Game

    from .models import ApiToken

    for model, cache in ((ApiToken, tokens), (get_user_model(), tokens), (Game, games)):
        for signal in (post_save, post_delete):
            signal.connect(cache.clear_now_and_on_commit, sender=model, weak=False,
                           dispatch_uid=f"lookups-{model.__name__}-{id(signal)}")  # fmt: skip
