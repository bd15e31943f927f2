"""Claude subscription quota detection: is this CLI output a quota message, and when does
the quota reset?

Structured signals first (a `rate_limit_event` whose status is `rejected` carries the exact
`resetsAt`); the text patterns stay as the fall-back for every wording the CLI has used.
The whole output is scanned, assistant text included: some CLI versions print the quota
message as if it were the answer.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .base import ClaudeQuotaError

QUOTA_MARKERS = (
    "usage limit reached",
    "you've hit",
    "you’ve hit",
    "hit your usage limit",
    "hit your session",
    "hit your limit",
    "rate limit reached",
    "limit reached ∙ resets",
    "limit reached · resets",
    "limit will reset at",
    "out of extra usage",
)
DEFAULT_WAIT = timedelta(hours=1)

_CLOCK = r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)"
_ZONE = r"(?:\s*\((?P<zone>[A-Za-z_]+(?:/[A-Za-z_+\-]+)*)\))?"
# In priority order: the first that matches gives the reset time.
_TIME_PATTERNS = (
    re.compile(r"\breset at\s+" + _CLOCK + _ZONE, re.I),
    re.compile(r"\bresets at\s+" + _CLOCK + _ZONE, re.I),
    re.compile(r"\btry again at\s+" + _CLOCK + _ZONE, re.I),
    re.compile(r"\bavailable again at\s+" + _CLOCK + _ZONE, re.I),
    re.compile(r"\breset at\s+(?P<hour>\d{1,2}):(?P<minute>\d{2})(?!\s*[ap]\.?m)" + _ZONE, re.I),
    re.compile(r"\bresets\s+" + _CLOCK + _ZONE, re.I),
)
_UNIX_SECONDS = re.compile(r"\|\s*(\d{9,11})\b")


def has_quota_marker(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in QUOTA_MARKERS)


def quota_error_from_text(text: str, *, now: datetime | None = None, tz: tzinfo | str = "UTC") -> ClaudeQuotaError | None:
    """The quota error this output announces, or None when it is not a quota message."""
    if not has_quota_marker(text):
        return None
    return ClaudeQuotaError(reset_time_from_text(text, now=now, tz=tz), message=_quota_line(text))


def quota_error_from_rate_limit(info: dict, *, now: datetime | None = None) -> ClaudeQuotaError | None:
    """A `rate_limit_event`'s `rate_limit_info`: `rejected` is a quota with that exact reset."""
    if info.get("status") != "rejected":
        return None
    resets_at = info.get("resetsAt")
    if isinstance(resets_at, (int, float)) and resets_at > 0:
        reset_at = datetime.fromtimestamp(resets_at, tz=timezone.utc)
    else:
        reset_at = _now(now) + DEFAULT_WAIT
    kind = info.get("rateLimitType") or "quota"
    return ClaudeQuotaError(reset_at, message=f"Claude {kind} limit reached, resets at {reset_at.isoformat()}")


def reset_time_from_text(text: str, *, now: datetime | None = None, tz: tzinfo | str = "UTC") -> datetime:
    """When the quota resets, read from the message; now + 1 h when it does not say."""
    now = _now(now)
    found = _UNIX_SECONDS.search(text)
    if found:
        return datetime.fromtimestamp(int(found.group(1)), tz=timezone.utc)
    for pattern in _TIME_PATTERNS:
        match = pattern.search(text)
        if match and (reset := _next_time_of_day(match, now, tz)):
            return reset
    return now + DEFAULT_WAIT


def _next_time_of_day(match: re.Match, now: datetime, default_tz: tzinfo | str) -> datetime | None:
    hour, minute = int(match.group("hour")), int(match.group("minute") or 0)
    ampm = (match.groupdict().get("ampm") or "").lower().replace(".", "")
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    zone = _zone(match.group("zone")) or _zone(default_tz) or timezone.utc
    local_now = now.astimezone(zone)
    candidate = local_now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if candidate <= local_now:
        candidate = (candidate.replace(tzinfo=None) + timedelta(days=1)).replace(tzinfo=zone)
    return candidate.astimezone(timezone.utc)


def _zone(value: tzinfo | str | None) -> tzinfo | None:
    if value is None or isinstance(value, tzinfo):
        return value
    try:
        return ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _quota_line(text: str) -> str:
    for line in text.splitlines():
        if has_quota_marker(line):
            return line.strip()[:300]
    return "Claude quota reached"


def _now(now: datetime | None) -> datetime:
    return now if now is not None else datetime.now(timezone.utc)
