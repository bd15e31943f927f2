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
    results = {}
    todo = []
    for item in items:
        cached = cache.get(key(item))
        if cached is not None:
            results[key(item)] = cached
        else:
            todo.append(item)
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
                item = futures[future]
                if future.cancelled():
                    continue
                try:
                    answer = future.result()
                except ClaudeQuotaError as err:
                    # Stop taking new work but keep what the running calls bring back; this
                    # item is neither done nor a fall-back: the resumed job asks it again.
                    quota = quota or err
                    for other in pending:
                        other.cancel()
                    continue
                except LLMError:
                    answer = None
                if answer is not None:
                    cache.put(key(item), answer)
                    results[key(item)] = answer
                done += 1
            on_progress(done, len(items))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        cache.flush()  # before any error propagates: a resumed job starts from here
    if quota is not None:
        raise quota
    return results
