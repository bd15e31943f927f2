"""Ingest endpoints (mounted under /api/): start an ingestion, follow it, list a game's jobs,
cancel a scheduled one. Staff only (session; Ninja checks CSRF on the POST and DELETE)."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.conf import settings
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import File, Form, Router
from ninja.files import UploadedFile
from ninja.responses import Status
from ninja.security import django_auth_is_staff

from games.models import Game
from runtime.ratelimit import upload_throttles

from . import language_choice, services
from .cancellation import request_cancel
from .events import event_stream
from .models import IngestJob
from .scheduling import NotScheduled, cancel_scheduled, schedule_ingest, validate_start_at
from .schemas import CancelledOut, CancelOut, ErrorOut, IngestAccepted, IngestIn, JobOut

router = Router(tags=["ingest"], auth=django_auth_is_staff)


def job_out(job: IngestJob) -> dict:
    return {
        "id": job.pk,
        "game_id": job.game_id,
        "extension_id": job.extension_id,
        "booklet_name": job.booklet_name,
        "booklet_kind": job.booklet_kind,
        "status": job.status,
        "pause_reason": job.pause_reason,
        "scheduled_at": job.scheduled_at,
        "act": job.current_act,
        "progress": job.progress,
        "stats": job.stats,
        "error": job.error,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
        "events_url": reverse("api:oracle-ingest-events", args=[job.pk]),
    }


@router.post(
    "/games/ingest",
    response={202: IngestAccepted, 400: ErrorOut, 404: ErrorOut, 413: ErrorOut, 422: ErrorOut},
    throttle=upload_throttles(),
    url_name="oracle-ingest-create",
)
def create_ingest(request, pdf: File[UploadedFile], data: Form[IngestIn]):
    """Upload a booklet PDF; answers 202 with the job and its events stream.

    Bad input (not a PDF by its bytes, encrypted, empty, too large, too many pages, unknown
    game) gets a 4xx and nothing is written."""
    when = None
    if data.scheduled_start_at:
        try:
            when = parse_start_at(data.scheduled_start_at)
        except ValueError as exc:
            return Status(422, {"detail": str(exc)})
    try:
        job = services.create_ingest(
            pdf_path_or_file=pdf,
            game=str(data.game_id) if data.game_id else None,
            new_game_name=data.new_game_name or None,
            kind=data.kind,
            name=data.name or None,
            language=language_choice.requested_language(data.language),
            bgg_id=data.bgg_id,
            user=request.user,
        )
    except services.InvalidPdf as exc:
        return Status(exc.status, {"detail": str(exc)})
    except services.UnknownGame as exc:
        return Status(404 if data.game_id else 422, {"detail": str(exc)})
    if when is not None:
        schedule_ingest(job, when)
    else:
        services.enqueue(job)
    job.refresh_from_db()
    return Status(202, accepted(job))


def parse_start_at(value: str) -> datetime:
    """ISO 8601 with a zone, in the future, at most 7 days ahead (else ValueError → 422)."""
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(_("« %(value)s » n'est pas une date ISO 8601.") % {"value": value}) from None
    return validate_start_at(when)


def accepted(job: IngestJob) -> dict:
    return {
        "job_id": job.pk,
        "game_id": job.game_id,
        "extension_id": job.extension_id,
        "status": job.status,
        "events_url": reverse("api:oracle-ingest-events", args=[job.pk]),
        "job_url": reverse("api:oracle-ingest-detail", args=[job.pk]),
    }


@router.get("/ingest/{job_id}", response=JobOut, url_name="oracle-ingest-detail")
def get_job(request, job_id: UUID):
    """A job's status, current act, per-act progress and error message."""
    return job_out(get_object_or_404(IngestJob.objects.select_related("game", "extension"), pk=job_id))


@router.get("/games/{game_id}/jobs", response=list[JobOut], url_name="oracle-game-jobs")
def list_game_jobs(request, game_id: UUID):
    """The ingestion jobs of a game, newest first."""
    game = get_object_or_404(Game, pk=game_id)
    return [job_out(job) for job in game.ingest_jobs.select_related("game", "extension")]


@router.get(
    "/ingest/{job_id}/events",
    url_name="oracle-ingest-events",
    openapi_extra={"responses": {200: {"description": "text/event-stream of act, warning, quota_pause, done, error"}}},
)
async def stream_job_events(request, job_id: UUID, last_event_id: int = 0):
    """Server-sent events of a job: replays the events after `Last-Event-ID` (header) or
    `?last_event_id=`, then follows the job until its `done` or `error` event."""
    job = await IngestJob.objects.select_related("game", "extension", "extension__game").filter(pk=job_id).afirst()
    if job is None:
        raise Http404
    header = request.headers.get("Last-Event-ID", "")
    start = int(header) if header.isdigit() else last_event_id
    collection = job.booklet.collection
    response = StreamingHttpResponse(
        event_stream(job.pk, start, on_done=lambda: sync_index(collection), heartbeat_s=settings.INGEST_SSE_HEARTBEAT_S,
                     fallback_poll_s=settings.INGEST_SSE_FALLBACK_POLL_S),
        content_type="text/event-stream",
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@router.delete(
    "/games/{game_id}/scheduled",
    response={200: CancelledOut, 409: ErrorOut},
    url_name="oracle-game-scheduled-cancel",
)
def cancel_scheduled_ingest(request, game_id: UUID):
    """Cancel an ingestion that has not started yet: remove the schedule, the stored PDF and
    the rows the scheduled ingestion created (409 when none is waiting)."""
    game = get_object_or_404(Game, pk=game_id)
    try:
        cancelled = cancel_scheduled(game)
    except NotScheduled as exc:
        return Status(409, {"detail": str(exc)})
    return Status(200, {"job_id": cancelled.job_id, "deleted": cancelled.deleted})


@router.post("/ingest/{job_id}/cancel", response={202: CancelOut, 409: ErrorOut}, url_name="oracle-ingest-cancel")
def cancel_job(request, job_id: UUID):
    """Cancel a queued job at once, or ask a running job's worker to stop (it does between two
    pages or batches, within seconds; its caches are kept for « Relancer »). A scheduled job is
    cancelled with `DELETE /api/games/{id}/scheduled`; a finished one answers 409."""
    job = get_object_or_404(IngestJob, pk=job_id)
    outcome = request_cancel(job)
    if not outcome:
        return Status(409, {"detail": _("Cette ingestion n'est ni en file ni en cours (%(status)s).") % {"status": job.get_status_display()}})
    return Status(202, {"job_id": job.pk, "outcome": outcome})


def sync_index(collection: str) -> None:
    """The web process owns the local index: make a finished booklet searchable at once."""
    import logging

    from games.indexing import sync_if_changed
    from runtime import components

    try:
        sync_if_changed(components.vector_store(), [collection])
    except Exception:  # noqa: BLE001 - the next search syncs again; the stream must go on
        logging.getLogger(__name__).exception("sync of %s after ingestion failed", collection)
