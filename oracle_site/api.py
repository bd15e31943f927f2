"""The project's single NinjaAPI; each app contributes its own router."""

import math

from django.core.exceptions import (
    BadRequest, PermissionDenied, SuspiciousMultipartForm, TooManyFieldsSent, TooManyFilesSent,
)
from django.http import Http404
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError
from ninja.responses import Status

from questions.auth import ASK_AUTH, ApiTokenAuth, SignedInSession
from runtime.api_access import use_credentials
from runtime.api_errors import api_refusal, error_body, validation_body
from runtime.api_input import NulRefusingParser, UnreadableBody
from runtime.ratelimit import too_many_requests_message
from runtime.refusals import Refused

from . import health

# An operation without its own `auth` is open to whoever may ask (token, session, or anyone
# when ASK_ALLOW_ANONYMOUS is on); staff-only ones say `auth=runtime.api_access.STAFF`.
use_credentials(ApiTokenAuth(), SignedInSession())
class OracleAPI(NinjaAPI):
    def get_openapi_schema(self, **kwargs):
        """Every operation that reads a body documents the 400 of a body that cannot be parsed
        (ninja answers it before the view runs, in the one error shape), once: ninja's codes are
        integers, an operation's own 400 is one already."""
        schema = super().get_openapi_schema(**kwargs)
        for operations in schema["paths"].values():
            for operation in operations.values():
                codes = {str(code) for code in operation["responses"]}
                if "requestBody" in operation and "400" not in codes:
                    operation["responses"][400] = {
                        "description": "Bad Request",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
                    }
        return schema


api = OracleAPI(
    title="Oracle API",
    version="1.0.0",
    description=(
        "Rules oracle for board games and trading card games: games, booklets, ingestion jobs, "
        "questions, health. Every 4xx answers `{\"detail\": \"…\", \"errors\": [{\"field\": \"…\", "
        "\"message\": \"…\"}]}`; lists take `limit` (default 20, at most 100) and `offset` and "
        "answer `{\"items\": […], \"count\": total}`. See docs/api-resources.md."
    ),
    urls_namespace="api",
    auth=ASK_AUTH,
    parser=NulRefusingParser(),  # a NUL anywhere in the input: 422 naming the field
)


class ComponentHealth(Schema):
    status: str
    latency_ms: float | None = None
    detail: str = ""
    backend: str = ""


class HealthOut(Schema):
    status: str
    components: dict[str, ComponentHealth]


@api.exception_handler(Throttled)
def too_many_requests(request, exc: Throttled):
    """429 in the client's language (LocaleMiddleware), with Retry-After when known."""
    response = api.create_response(request, error_body(too_many_requests_message(exc.wait)), status=429)
    if exc.wait is not None:
        response["Retry-After"] = str(math.ceil(exc.wait))
    return response


@api.exception_handler(AuthenticationError)
def unauthenticated(request, exc: AuthenticationError):
    message = str(exc) if str(exc) != "Unauthorized" else _("Identifiez-vous : session ou jeton d'API.")
    return api.create_response(request, error_body(message), status=exc.status_code)


NINJA_CSRF_FAILURE = "CSRF check Failed"  # ninja.security.apikey.APIKeyCookie


@api.exception_handler(HttpError)
def http_error(request, exc: HttpError):
    """Ninja answers any error of the parser's `parse_body` with its own 400 (in English): the
    parser's two refusals (runtime/api_input.py) are its cause, answered here as they mean."""
    if isinstance(exc.__cause__, ValidationError):  # a NUL in the body
        return invalid_input(request, exc.__cause__)
    if isinstance(exc.__cause__, UnreadableBody):
        return unreadable_request(request, exc.__cause__)
    if str(exc) == NINJA_CSRF_FAILURE:  # a session's write without its CSRF token (ninja's English sentence)
        message = _("Vérification CSRF échouée : avec une session, envoyez l'en-tête X-CSRFToken (cookie csrftoken), "
                    "ou utilisez un jeton d'API.")
        return api.create_response(request, error_body(message), status=exc.status_code)
    return api.create_response(request, error_body(str(exc)), status=exc.status_code)


@api.exception_handler(PermissionDenied)
def forbidden(request, exc: PermissionDenied):
    return api.create_response(request, error_body(str(exc) or _("Accès refusé.")), status=403)


@api.exception_handler(Http404)
def not_found(request, exc: Http404):
    """The same answer for what does not exist and what the caller may not see."""
    return api.create_response(request, error_body(_("Introuvable.")), status=404)


@api.exception_handler(Refused)
def refused(request, exc: Refused):
    """A refusal of a service (runtime/refusals.py), by runtime/api_errors.py's one table."""
    return api_refusal(exc)


@api.exception_handler(MultiPartParserError)
@api.exception_handler(BadRequest)
@api.exception_handler(SuspiciousMultipartForm)
@api.exception_handler(TooManyFieldsSent)
@api.exception_handler(TooManyFilesSent)
def unreadable_request(request, exc: Exception):
    """A body Django cannot parse (a 5,000-character multipart filename, too many fields…),
    raised while ninja's CSRF check reads the form, or a JSON body that is not JSON: 400 in
    the one shape and the client's language, not Django's page nor ninja's English sentence.
    Only the parser's own errors: any other SuspiciousOperation (a file path) goes on to
    Django, which logs it under django.security and answers 400 (JSON under /api/ by
    oracle_site.api_json_errors), without echoing its message."""
    return api.create_response(request, error_body(_("Requête invalide : son corps n'a pas pu être lu (%(error)s).")
                                                   % {"error": str(exc)[:200] or exc.__class__.__name__}), status=400)


@api.exception_handler(ValidationError)
def invalid_input(request, exc: ValidationError):
    return api.create_response(request, validation_body(exc.errors), status=422)


def _public(check: dict) -> dict:
    """A component as anyone may see it: no detail, no path, no address (health.public)."""
    return health.public(check)


# HEAD too: uptime monitors probe with it (the status alone; daphne sends no body).
@api.api_operation(["GET", "HEAD"], "/health", response={200: HealthOut, 503: HealthOut}, tags=["health"], auth=None)
def get_health(request):
    """Each component with its status and latency; 503 when one is down. The details (paths
    under var/, backend errors) are for staff only; anyone else sees statuses."""
    components = health.run_checks()
    down = any(check["status"] == "down" for check in components.values())
    if not request.user.is_staff:
        components = {name: _public(check) for name, check in components.items()}
    body = {"status": "down" if down else "ok", "components": components}
    return Status(503 if down else 200, body)


from games.api import router as games_router  # noqa: E402
from games.api_booklets import router as booklets_router  # noqa: E402
from games.api_decks import router as decks_router  # noqa: E402
from ingest.api import router as ingest_router  # noqa: E402
from questions.api import router as questions_router  # noqa: E402
from questions.api_conversations import router as conversations_router  # noqa: E402
from questions.api_tokens import router as tokens_router  # noqa: E402

# One router per app under its own prefix. The ingest router keeps the reference's URLs
# (`POST /api/games/ingest`, `DELETE /api/games/{id}/scheduled`, `/api/ingest/{id}/…`),
# which span two prefixes, so it is mounted at the root.
# The ingest router comes first: its `/api/games/ingest` must win over `/api/games/{game_id}`.
# Its operations are staff only (runtime.api_access.STAFF: a staff token or session; a player
# gets 403). Decks are for whoever may ask (games cannot import the questions app, where the
# credentials live: the auth is given here).
api.add_router("/", ingest_router)
api.add_router("/games", games_router)
api.add_router("/booklets", booklets_router)
api.add_router("/ask", questions_router)
api.add_router("/", conversations_router)  # /conversations… and PUT /ask/{id}/feedback
api.add_router("/tokens", tokens_router)
api.add_router("/decks", decks_router, auth=ASK_AUTH)
