"""Per-user and per-IP rate limits on asking, uploading and rendering page images, as
django-ninja throttles.

Ninja runs a route's throttles after its authentication and answers 429 with `Retry-After`.
The request history lives in the Django cache named by RATE_LIMIT_CACHE (Redis in the
scaled configuration, the file cache under var/ otherwise), so every web process counts
the same requests. The rates are read from settings on each request ("10/m", "30/h"; empty
disables one limit).
"""

from __future__ import annotations

import ipaddress
import math
import threading
from typing import Callable

from django.conf import settings
from django.core.cache import caches
from django.utils.translation import gettext as _
from ninja.throttling import SimpleRateThrottle


# Ninja's throttle reads a client's history, checks it and writes it back: two threads that
# read the same history both pass and both write n+1, so concurrent asks (follow-ups checked
# in the ask setup pool's threads) got past the limit several times over. One check at a time
# per process; with the shared cache (several web processes) the checks of two processes can
# still overlap.
_check_lock = threading.Lock()


class SettingsRateThrottle(SimpleRateThrottle):
    """A sliding-window throttle whose rate is the setting `setting_name`."""

    def __init__(self, scope: str, setting_name: str):
        self.scope = scope
        self.setting_name = setting_name
        self.rate = None
        self.num_requests = self.duration = None

    @property
    def cache(self):
        return caches[settings.RATE_LIMIT_CACHE]

    def allow_request(self, request) -> bool:
        self.rate = getattr(settings, self.setting_name) or None
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        with _check_lock:
            return super().allow_request(request)

    def get_cache_key(self, request) -> str | None:
        ident = self.ident(request)
        if ident is None:
            return None
        return f"oracle-ratelimit:{self.scope}:{ident}"

    def ident(self, request) -> str | None:
        raise NotImplementedError


class PerUser(SettingsRateThrottle):
    """Counts a signed-in user's (or API token holder's) requests; visitors are left to PerIP."""

    def ident(self, request) -> str | None:
        user = getattr(request, "auth", None)
        if not getattr(user, "is_authenticated", False):
            user = getattr(request, "user", None)
        if getattr(user, "is_authenticated", False):
            return f"user-{user.pk}"
        return None


class PerIP(SettingsRateThrottle):
    """Counts the requests of one client address (X-Forwarded-For is read only behind
    TRUSTED_PROXIES proxies: a client cannot pick its own address)."""

    def ident(self, request) -> str | None:
        return f"ip-{client_ip(request)}"


def client_ip(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or "unknown"
    proxies = settings.TRUSTED_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    return hops[-min(proxies, len(hops))] if hops else remote


def login_client_ip(request) -> str | None:
    """The client's address for django-axes, which stores it in an IP column: None when it is
    not an address (no REMOTE_ADDR, a forged X-Forwarded-For hop), which PostgreSQL's inet
    column would refuse with a 500 on every login."""
    try:
        return str(ipaddress.ip_address(client_ip(request)))
    except ValueError:
        return None


def ask_throttles() -> list[SettingsRateThrottle]:
    return [PerUser("ask", "RATE_LIMIT_ASK_USER"), PerIP("ask", "RATE_LIMIT_ASK_IP")]


def count_ask(request, refuse: Callable[[float | None], Exception]) -> None:
    """Count `request` against the ask limits, per user and per IP (fresh throttle objects:
    they keep per-request state); past one, raise `refuse(seconds to wait, None if unknown)`.
    For the routes that check them in the view, after their own 4xx (a refused request is not
    counted), where ninja's route `throttle` would count before it."""
    _count(request, ask_throttles(), refuse)


def count_render(request, refuse: Callable[[float | None], Exception]) -> None:
    """Count a page image rendered for `request` (a page already rendered costs nothing and is
    not counted): a render takes the web process's CPU for up to a second or two, so one
    client walking every page of every booklet waits its turn like the others."""
    _count(request, [PerUser("render", "RATE_LIMIT_RENDER_USER"), PerIP("render", "RATE_LIMIT_RENDER_IP")], refuse)


def _count(request, throttles: list[SettingsRateThrottle], refuse: Callable[[float | None], Exception]) -> None:
    """One throttle after the other (per user, then per address), stopping at the first that
    refuses: a signed-in user past their own limit does not fill the address's count for the
    others behind the same address (a club's one NAT)."""
    for throttle in throttles:
        if not throttle.allow_request(request):
            raise refuse(throttle.wait())


def upload_throttles() -> list[SettingsRateThrottle]:
    return [PerUser("upload", "RATE_LIMIT_UPLOAD_USER"), PerIP("upload", "RATE_LIMIT_UPLOAD_IP")]


def too_many_requests_message(wait: float | None) -> str:
    """The 429's detail in the client's language (LocaleMiddleware): the API's handler for
    ninja's throttles and the ask stream, which checks its limits itself, say the same."""
    if wait is not None:
        return _("Trop de requêtes : réessayez dans %(seconds)d s.") % {"seconds": math.ceil(wait)}
    return _("Trop de requêtes : réessayez plus tard.")
