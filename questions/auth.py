"""Who may ask: a signed-in user (session, CSRF-checked), a REST client with its per-user
API token (`Authorization: Bearer <key>`), and anyone when ASK_ALLOW_ANONYMOUS is on."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from ninja.security import HttpBearer, SessionAuth

from .models import ApiToken

LAST_USED_PRECISION = timedelta(minutes=5)


class ApiTokenAuth(HttpBearer):
    def authenticate(self, request, token: str):
        try:
            api_token = ApiToken.objects.select_related("user").get(
                key_hash=ApiToken.hash_key(token), revoked=False, user__is_active=True
            )
        except ApiToken.DoesNotExist:
            return None
        now = timezone.now()
        if api_token.last_used_at is None or now - api_token.last_used_at > LAST_USED_PRECISION:
            # A write per request would queue every ask behind SQLite's writer lock.
            ApiToken.objects.filter(pk=api_token.pk).update(last_used_at=now)
        request.user = api_token.user
        return api_token.user


class AnonymousWhenAllowed:
    """Last in the chain: lets a visitor through when the site opens asking to everyone."""

    def __call__(self, request):
        if settings.ASK_ALLOW_ANONYMOUS:
            return AnonymousUser()  # truthy: ninja lets the request through
        return None


ASK_AUTH = [ApiTokenAuth(), SessionAuth(), AnonymousWhenAllowed()]


def asking_user(request):
    """The user to record on a question (None for an anonymous visitor)."""
    user = getattr(request, "auth", None)
    return user if getattr(user, "is_authenticated", False) else None
