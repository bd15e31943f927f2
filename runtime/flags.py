"""Flags every process of the site sees: a key in the shared Django cache (Redis in the scaled
configuration, the file cache under var/ otherwise) that lives `ttl` seconds unless refreshed.

« Stop this answer » and « this question is being answered here » (questions/ask_flow/
answering.py) are such flags. Reading or writing one never raises: the cache being down reads
as « not set » and the caller's own process still knows what it set itself."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.core.cache import cache

log = logging.getLogger(__name__)


def raise_flag(key: str, ttl: float, value: object = True) -> None:
    """`value`: what the flag says besides being up (who raised it: runtime/process_identity.py)."""
    try:
        cache.set(key, value, timeout=ttl)
    except Exception:  # the cache is down: only this process knows
        log.warning("flag %s could not be set", key, exc_info=True)


def raise_flags(keys: Iterable[str], ttl: float, value: object = True) -> None:
    keys = list(keys)
    if not keys:
        return
    try:
        cache.set_many({key: value for key in keys}, timeout=ttl)
    except Exception:
        log.warning("%d flag(s) could not be refreshed", len(keys), exc_info=True)


def lower_flag(key: str) -> None:
    try:
        cache.delete(key)
    except Exception:
        log.warning("flag %s could not be cleared", key, exc_info=True)


def flag_is_up(key: str) -> bool:
    return bool(flag_value(key))


def flag_value(key: str) -> object | None:
    """The flag's value, None when it is down (or the cache cannot be read)."""
    try:
        return cache.get(key)
    except Exception:
        return None


def flag_values(keys: Iterable[str]) -> dict[str, object]:
    """The keys among `keys` whose flag is up, with their values. Raises when the cache cannot
    be read: a caller deciding that nobody holds a flag must not decide it from a cache that is
    down."""
    keys = list(keys)
    return cache.get_many(keys) if keys else {}
