"""Who may call an API operation. The site's credentials (a per-user token, a session) belong to
the questions app, above the apps that need them here: `oracle_site/api.py` hands them over
with `use_credentials`, and the games and ingest routers mark their staff-only operations with
`auth=STAFF`. The check runs before the input is read: a player gets 403 whatever they send,
a visitor without credentials 401."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from ninja.security import HttpBearer

_credentials: list = []


def use_credentials(*auths) -> None:
    """The ninja auth callables that recognise a user (tried in order)."""
    _credentials[:] = auths


class StaffOnly(HttpBearer):
    """A bearer scheme in the OpenAPI schema (a staff member's API token); a staff session
    works too."""

    def authenticate(self, request, token):  # never called: __call__ tries every credential
        return None

    def __call__(self, request):
        for auth in _credentials:
            user = auth(request)
            if user:
                break
        else:
            return None  # nobody recognised: ninja answers 401
        if not getattr(user, "is_staff", False):
            raise PermissionDenied(_("Réservé aux administrateurs."))
        request.user = user
        return user


STAFF = [StaffOnly()]


def is_staff(request) -> bool:
    """Whether the caller the operation's authentication recognised is staff."""
    return bool(getattr(getattr(request, "auth", None), "is_staff", False))
