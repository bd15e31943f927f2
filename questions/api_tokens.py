"""A user's API tokens (mounted under /api/): list, issue (the key is shown once), revoke.

Only one's own tokens, staff included (the admin lists everyone's). A script's first token
can be issued with the account's username and password (HTTP Basic, on `POST /api/tokens`
only); wrong passwords count towards the login lockout (django-axes) as on the login form."""

from datetime import datetime
from uuid import UUID

from django.contrib.auth import authenticate
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema
from ninja.pagination import paginate
from ninja.responses import Status
from ninja.security import HttpBasicAuth

from runtime.api_errors import READ_ERRORS, Pagination

from .auth import ApiTokenAuth, SignedInSession
from .models import ApiToken

TOKEN_AUTH = [ApiTokenAuth(), SignedInSession()]

router = Router(tags=["tokens"], auth=TOKEN_AUTH)


class PasswordAuth(HttpBasicAuth):
    """The account's username and password, checked by Django's backends (django-axes first:
    a locked-out client gets 403 without its password being tried)."""

    def authenticate(self, request, username: str, password: str):
        user = authenticate(request, username=username, password=password)
        return user if user is not None and user.is_active else None


TOKEN_EXAMPLE = {"id": "3f6c1d2e-8a4b-4c5d-9e0f-1a2b3c4d5e6f", "name": "my script", "prefix": "orc_Xb3kP0aQ",
                 "createdAt": "2026-11-30T09:12:00+00:00", "lastUsedAt": None, "revoked": False}


class TokenOut(Schema):
    model_config = {"json_schema_extra": {"examples": [TOKEN_EXAMPLE]}}

    id: UUID
    name: str
    prefix: str  # the key's first characters, to recognise it
    createdAt: datetime = Field(alias="created_at")
    lastUsedAt: datetime | None = Field(alias="last_used_at")
    revoked: bool


class NewTokenOut(TokenOut):
    model_config = {"json_schema_extra": {"examples": [{**TOKEN_EXAMPLE, "key": "orc_Xb3kP0aQ…"}]}}

    key: str  # shown once: only its hash is kept


class TokenIn(Schema):
    name: str = Field("", max_length=100)


@router.get("", response={200: list[TokenOut], **READ_ERRORS}, url_name="oracle-tokens")
@paginate(Pagination)
def list_tokens(request):
    """The caller's tokens, newest first, revoked ones included."""
    return ApiToken.objects.filter(user=request.auth).order_by("-created_at")


@router.post("", response={201: NewTokenOut, **READ_ERRORS}, auth=[*TOKEN_AUTH, PasswordAuth()], url_name="oracle-token-create")
def create_token(request, payload: TokenIn):
    """A new token for the caller; its key is in this answer and nowhere else, ever."""
    token, token.key = ApiToken.issue(request.auth, payload.name.strip())
    return Status(201, token)


@router.delete("/{token_id}", response={204: None, **READ_ERRORS}, url_name="oracle-token-revoke")
def revoke_token(request, token_id: UUID):
    """Revoke one of the caller's tokens (another's is a 404); it stops working at once in
    this process, within ASK_LOOKUP_CACHE_S in the others (questions/lookups.py)."""
    token = get_object_or_404(ApiToken, pk=token_id, user=request.auth)
    token.revoked = True
    token.save(update_fields=["revoked"])
    return Status(204, None)
