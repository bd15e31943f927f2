"""A user's API tokens (mounted under /api/): list, issue (the key is shown once), revoke.

Only one's own tokens, staff included (the admin lists everyone's). Only a password issues or
revokes a token: a signed-in session, or the account's username and password (HTTP Basic,
on `POST /api/tokens` and `DELETE /api/tokens/{id}`, for a script's first token); a bearer
token is refused (403), so a leaked token cannot breed tokens that outlive its revocation.
Wrong passwords count towards the login lockout (django-axes) as on the login form.

A token may expire (`expiresAt`: the caller's `expiresInDays`, else API_TOKEN_LIFETIME_DAYS,
else never); it records who issued it (`createdBy`). Deactivating a user revokes their tokens
(questions.token_revocation)."""

from datetime import datetime, timedelta
from uuid import UUID

from django.contrib.auth import authenticate, get_user_model
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext as _
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema
from ninja.pagination import paginate
from ninja.responses import Status
from ninja.security import HttpBasicAuth
from pydantic import StrictInt

from runtime.api_errors import READ_ERRORS, ErrorOut, Pagination

from .auth import ApiTokenAuth, SignedInSession
from .models import ApiToken

TOKEN_AUTH = [ApiTokenAuth(), SignedInSession()]

router = Router(tags=["tokens"], auth=TOKEN_AUTH)


class PasswordAuth(HttpBasicAuth):
    """The account's username and password, checked by Django's backends (django-axes first:
    a locked-out client gets 403 without its password being tried).

    A name or password holding a NUL character is no account's (the login form refuses it
    too): it is answered 401 before django-axes looks it up, which PostgreSQL's text fields
    refuse with an error (a 500 before). Nor is a name longer than a username may be: its
    failure, logged by django-axes in a 255-character column, was a 500 on PostgreSQL."""

    def authenticate(self, request, username: str, password: str):
        too_long = len(username) > get_user_model()._meta.get_field("username").max_length
        if too_long or "\x00" in username or "\x00" in password:
            return None
        user = authenticate(request, username=username, password=password)
        return user if user is not None and user.is_active else None


class NoBearerToken:
    """First in the chain of the operations that issue or revoke tokens: a bearer token is
    refused outright (403), before any other credential is tried."""

    def __call__(self, request):
        scheme, _sep, _key = (request.headers.get("Authorization") or "").partition(" ")
        if scheme.lower() == "bearer":
            raise PermissionDenied(_("Un jeton d'API ne peut ni créer ni révoquer de jeton : connectez-vous avec votre mot de passe."))
        return None


PASSWORD_AUTH = [NoBearerToken(), SignedInSession(), PasswordAuth()]
MAX_LIFETIME_DAYS = 3650


TOKEN_EXAMPLE = {"id": "3f6c1d2e-8a4b-4c5d-9e0f-1a2b3c4d5e6f", "name": "my script", "prefix": "orc_Xb3kP0aQ",
                 "createdAt": "2026-11-30T09:12:00+00:00", "lastUsedAt": None, "expiresAt": None, "createdBy": "bob",
                 "revoked": False}


class TokenOut(Schema):
    model_config = {"json_schema_extra": {"examples": [TOKEN_EXAMPLE]}}

    id: UUID
    name: str
    prefix: str  # the key's first characters, to recognise it
    createdAt: datetime = Field(alias="created_at")
    lastUsedAt: datetime | None = Field(alias="last_used_at")
    expiresAt: datetime | None = Field(alias="expires_at")  # None: never
    createdBy: str | None  # the username of who issued it
    revoked: bool

    @staticmethod
    def resolve_createdBy(token) -> str | None:
        return token.created_by.get_username() if token.created_by_id else None


class NewTokenOut(TokenOut):
    model_config = {"json_schema_extra": {"examples": [{**TOKEN_EXAMPLE, "key": "orc_Xb3kP0aQ…"}]}}

    key: str  # shown once: only its hash is kept


class TokenIn(Schema):
    name: str = Field("", max_length=100)
    expiresInDays: StrictInt | None = Field(None, ge=1, le=MAX_LIFETIME_DAYS,  # a number: not true nor "30"
                                            description="Days the token lives; absent: API_TOKEN_LIFETIME_DAYS, else never.")


@router.get("", response={200: list[TokenOut], **READ_ERRORS}, url_name="oracle-tokens")
@paginate(Pagination)
def list_tokens(request):
    """The caller's tokens, newest first, revoked ones included."""
    return ApiToken.objects.filter(user=request.auth).select_related("created_by").order_by("-created_at")


@router.post("", response={201: NewTokenOut, **READ_ERRORS, 403: ErrorOut, 429: ErrorOut}, auth=PASSWORD_AUTH,
             url_name="oracle-token-create")
def create_token(request, payload: TokenIn):
    """A new token for the caller (a session or HTTP Basic; a bearer token gets 403); its key
    is in this answer and nowhere else, ever."""
    expires_at = timezone.now() + timedelta(days=payload.expiresInDays) if payload.expiresInDays else None
    token, token.key = ApiToken.issue(request.auth, payload.name.strip(), created_by=request.auth, expires_at=expires_at)
    return Status(201, token)


@router.delete("/{token_id}", response={204: None, **READ_ERRORS, 403: ErrorOut, 429: ErrorOut}, auth=PASSWORD_AUTH,
               url_name="oracle-token-revoke")
def revoke_token(request, token_id: UUID):
    """Revoke one of the caller's tokens (another's is a 404; a session or HTTP Basic, a bearer
    token gets 403); it stops working at once in
    this process, within ASK_LOOKUP_CACHE_S in the others (questions/lookups.py)."""
    token = get_object_or_404(ApiToken, pk=token_id, user=request.auth)
    token.revoked = True
    token.save(update_fields=["revoked"])
    return Status(204, None)
