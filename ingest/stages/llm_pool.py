"""Run one LLM call per item in a thread pool (INGEST_LLM_CONCURRENCY), with a per-booklet
JSON cache. A quota error stops the pool, flushes the cache, then propagates."""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Callable, Sequence

from rag.llm.base import ClaudeQuotaError, LLMError

from .cache import JsonCache


def map_cached(
    items: Sequence,
    *,
    key: Callable[[object], str],
    call: Callable[[object], object],
    cache: JsonCache,
    concurrency: int,
    on_progress: Callable[[int, int], None] = lambda done, total: None,
) -> dict[str, object]:
    """Answers by key; an item whose call failed (other than quota) is left out."""
    results, todo = _from_cache(items, key, cache)
    done = len(results)
    on_progress(done, len(items))
    quota: ClaudeQuotaError | None = None
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    try:
        futures = {pool.submit(call, item): item for item in todo}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                if future.cancelled():
                    continue
                answer, quota_hit = _outcome(future)
                if quota_hit is not None:  # stop taking new work; the running calls still count
                    quota = quota or quota_hit
                    for other in pending:
                        other.cancel()
                    continue
                if answer is not None:
                    cache.put(key(futures[future]), answer)
                    results[key(futures[future])] = answer
                done += 1
            on_progress(done, len(items))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        cache.flush()  # before any error propagates: a resumed job starts from here
    if quota is not None:
        raise quota
    return results


def _from_cache(items: Sequence, key: Callable[[object], str], cache: JsonCache) -> tuple[dict[str, object], list]:
    """The answers already cached by key, and the items still to ask."""
    results, todo = {}, []
    for item in items:
        cached = cache.get(key(item))
        if cached is not None:
            results[key(item)] = cached
        else:
            todo.append(item)
    return results, todo


def _outcome(future) -> tuple[object | None, ClaudeQuotaError | None]:
    """A finished call's answer (None when it failed), or the quota error that stopped it: that
    item is neither done nor a fall-back, the resumed job asks it again."""
    try:
        return future.result(), None
    except ClaudeQuotaError as err:
        return None, err
    except LLMError:
        return None, None
