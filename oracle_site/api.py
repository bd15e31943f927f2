"""The project's single NinjaAPI; each app contributes its own router."""

from ninja import NinjaAPI, Schema
from ninja.responses import Status

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


@api.get("/health", response={200: HealthOut, 503: HealthOut}, tags=["health"], auth=None)
def get_health(request):
    """Each component with its status and latency; 503 when one is down."""
    components = health.run_checks()
    down = any(check["status"] == "down" for check in components.values())
    body = {"status": "down" if down else "ok", "components": components}
    return Status(503 if down else 200, body)


from games.api import router as games_router  # noqa: E402
from ingest.api import router as ingest_router  # noqa: E402
from questions.api import router as questions_router  # noqa: E402

api.add_router("/", games_router)
api.add_router("/", ingest_router)
api.add_router("/", questions_router)
