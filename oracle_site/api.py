"""The project's single NinjaAPI; each app contributes its own router."""

import math

from ninja import NinjaAPI, Schema
from ninja.errors import Throttled
from ninja.responses import Status

from runtime.ratelimit import too_many_requests_message

from . import health

api = NinjaAPI(
    title="Oracle API",
    version="1.0.0",
    description="Rules oracle for board games and trading card games: ingestion, questions, health.",
    urls_namespace="api",
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
    response = api.create_response(request, {"detail": too_many_requests_message(exc.wait)}, status=429)
    if exc.wait is not None:
        response["Retry-After"] = str(math.ceil(exc.wait))
    return response


def _public(check: dict) -> dict:
    """A component as anyone may see it: no detail, no path, no address (health.public)."""
    return health.public(check)


@api.get("/health", response={200: HealthOut, 503: HealthOut}, tags=["health"], auth=None)
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
from ingest.api import router as ingest_router  # noqa: E402
from questions.api import router as questions_router  # noqa: E402

# One router per app under its own prefix. The ingest router keeps the reference's URLs
# (`POST /api/games/ingest`, `DELETE /api/games/{id}/scheduled`, `/api/ingest/{id}/…`),
# which span two prefixes, so it is mounted at the root.
api.add_router("/games", games_router)
api.add_router("/", ingest_router)
api.add_router("/ask", questions_router)
