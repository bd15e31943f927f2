"""`DELETE /api/games/{id}/scheduled`: cancel an ingestion that has not started yet."""

from uuid import UUID

from django.shortcuts import get_object_or_404
from ninja import Router, Schema
from ninja.responses import Status
from ninja.security import django_auth_is_staff

from games.models import Game

from .scheduling import NotScheduled, cancel_scheduled

router = Router(tags=["ingest"])


class CancelledOut(Schema):
    job_id: str
    deleted: str


class ConflictOut(Schema):
    detail: str


@router.delete(
    "/games/{game_id}/scheduled",
    response={200: CancelledOut, 409: ConflictOut},
    auth=django_auth_is_staff,
    url_name="oracle-game-scheduled-cancel",
)
def cancel_scheduled_ingest(request, game_id: UUID):
    """Remove the schedule, the stored PDF and the rows the scheduled ingestion created."""
    game = get_object_or_404(Game, pk=game_id)
    try:
        cancelled = cancel_scheduled(game)
    except NotScheduled as exc:
        return Status(409, {"detail": str(exc)})
    return Status(200, {"job_id": cancelled.job_id, "deleted": cancelled.deleted})
