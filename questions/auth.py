"""Who may ask: a signed-in user (session, CSRF-checked), a REST client with its per-user
API token (`Authorization: Bearer <key>`), and anyone when ASK_ALLOW_ANONYMOUS is on.

The ask stream checks the token in the ask setup pool (`AsyncApiTokenAuth`), not on Django's
thread-sensitive thread, remembers it for ASK_LOOKUP_CACHE_S (questions/lookups.py), and
records `last_used_at` without waiting for it (a write may wait for SQLite's writer lock
while the worker ingests)."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja.errors import HttpError
from ninja.security import HttpBearer, SessionAuth

from . import lookups
from .models import ApiToken
from runtime import executors

LAST_USED_PRECISION = timedelta(minutes=5)
_touched: dict = {}  # token key hash -> when this process last recorded its use


def find_token(key_hash: str):
    """The live ApiToken with its user, or None; remembered for ASK_LOOKUP_CACHE_S."""
    return lookups.tokens.load(key_hash, lambda: _live_token(key_hash))


def _live_token(key_hash: str):
    try:
        api_token = ApiToken.objects.select_related("user").get(key_hash=key_hash, revoked=False, user__is_active=True)
    except ApiToken.DoesNotExist:
        return None
    return None if api_token.expired else api_token


def use_is_due(api_token) -> bool:
    """Whether to record this use: a write per request would queue every ask behind SQLite's
    writer lock, so once per LAST_USED_PRECISION per process."""
    now = timezone.now()
    last = max((t for t in (api_token.last_used_at, _touched.get(api_token.key_hash)) if t), default=None)
    if last is not None and now - last <= LAST_USED_PRECISION:
        return False
    _touched[api_token.key_hash] = now
    return True


def record_use(token_pk, when) -> None:
    ApiToken.objects.filter(pk=token_pk).update(last_used_at=when)


def unknown_token() -> HttpError:
    """A bearer token that is wrong, revoked or expired: 401 at once, whatever the method (the
    ask stream once answered 403 « CSRF check Failed » from the session check that came next)."""
    return HttpError(401, _("Jeton d'API inconnu, révoqué ou expiré."))


class ApiTokenAuth(HttpBearer):
    def authenticate(self, request, token: str):
        api_token = find_token(ApiToken.hash_key(token))
        if api_token is None or api_token.expired:
            raise unknown_token()
        if use_is_due(api_token):
            record_use(api_token.pk, timezone.now())
        request.user = api_token.user
        return api_token.user


class AsyncApiTokenAuth(ApiTokenAuth):
    """The same check for async views: a token seen in the last ASK_LOOKUP_CACHE_S is taken
    from `lookups.tokens`; otherwise it is looked up in the ask setup pool (`coalesced`). Its
    use is recorded in the save pool, without waiting."""

    is_async = True

    async def __call__(self, request):
        value = request.headers.get(self.header) or ""
        scheme, _, key = value.partition(" ")
        if scheme.lower() != self.openapi_scheme or not key:
            return None
        key_hash = ApiToken.hash_key(key)
        api_token = lookups.tokens.get(key_hash)
        if api_token is None:
            api_token = await lookups.coalesced(("token", key_hash), find_token, key_hash)
        if api_token is None or api_token.expired:  # a remembered token may have expired since
            raise unknown_token()
        if use_is_due(api_token):
            executors.ask_save().submit(record_use, api_token.pk, timezone.now())
        request.user = api_token.user
        return api_token.user


class SignedInSession(SessionAuth):
    """Django's session, CSRF-checked when it signs someone in. A visitor without a session
    carries no ambient credentials to forge: no CSRF check, so they get 401, not 403."""

    def _get_key(self, request):
        if not request.user.is_authenticated:
            return None
        return super()._get_key(request)


class AnonymousWhenAllowed:
    """Last in the chain: lets a visitor through when the site opens asking to everyone."""

    def __call__(self, request):
        if settings.ASK_ALLOW_ANONYMOUS:
            return AnonymousUser()  # truthy: ninja lets the request through
        return None


ASK_AUTH = [ApiTokenAuth(), SignedInSession(), AnonymousWhenAllowed()]
ASK_STREAM_AUTH = [AsyncApiTokenAuth(), SignedInSession(), AnonymousWhenAllowed()]


def asking_user(request):
    """The user to record on a question (None for an anonymous visitor)."""
    user = getattr(request, "auth", None)
    return user if getattr(user, "is_authenticated", False) else None
