"""HTTP 429 without a quota signal, for every backend: retried `LLM_RATE_LIMIT_RETRIES` times
with a doubling wait (or the server's `Retry-After`), then a `ClaudeQuotaError` so long jobs
pause and resume instead of silently losing the calls (ingestion's contexts, hierarchy…).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Callable, Iterator

from .base import ClaudeQuotaError, LLMError
from .cancel import pause
from .quota import reset_time_from_text

log = logging.getLogger(__name__)


class RateLimited(LLMError):
    """HTTP 429 without a quota signal: worth a retry after a short wait (`retry_after`
    seconds when the server said so)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class RetryPolicy:
    retries: int
    backoff_s: float
    quota_time_zone: str = "UTC"


def with_rate_limit_retries(run: Callable[[], Iterator[str]], policy: RetryPolicy, deadline: float) -> Iterator[str]:
    """The deltas of `run()`, run once more after each `RateLimited` raised before any text
    (a retry after text would repeat it)."""
    for attempt in range(policy.retries + 1):
        produced = False
        try:
            for text in run():
                produced = True
                yield text
            return
        except RateLimited as exc:
            if produced:
                raise LLMError(f"rate limited mid-answer: {exc}") from exc
            _wait_before_retry(exc, attempt, policy, deadline)


def _wait_before_retry(exc: RateLimited, attempt: int, policy: RetryPolicy, deadline: float) -> None:
    wait = exc.retry_after if exc.retry_after is not None else policy.backoff_s * (2**attempt)
    if attempt >= policy.retries or time.monotonic() + wait >= deadline:
        raise ClaudeQuotaError(_reset_at(exc, policy), message=f"rate limited after {attempt + 1} attempts: {exc}") from exc
    log.info("LLM rate limited (429), retry %d in %.1fs", attempt + 1, wait)
    pause(wait)


def _reset_at(exc: RateLimited, policy: RetryPolicy) -> datetime:
    if exc.retry_after is not None:  # the server said when: the pause lasts that long
        return datetime.now(timezone.utc) + timedelta(seconds=exc.retry_after)
    return reset_time_from_text(str(exc), tz=policy.quota_time_zone)


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> float | None:
    """An HTTP `Retry-After` header (seconds or an HTTP date) in seconds; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())
