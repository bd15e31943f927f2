"""Ingest endpoints (mounted under /api/): start an ingestion, list and follow jobs, cancel,
retry, re-ingest a booklet. Staff only: a token or a session (CSRF-checked on POST and
DELETE); a visitor gets 401, a signed-in player 403."""

from datetime import datetime
from typing import Literal
from uuid import UUID

from django.conf import settings
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import File, Form, Router
from ninja.errors import HttpError
from ninja.files import UploadedFile
from ninja.pagination import paginate
from ninja.responses import Status

from games.models import Game
from games.services import find_booklet
from runtime.api_access import STAFF
from runtime.api_errors import ErrorOut, MappedPage, Pagination, invalid_field
from runtime.ratelimit import upload_throttles

from . import language_choice, services
from .cancellation import request_cancel
from .models import IngestJob
from .progress import event_stream
from .scheduling import AmbiguousSchedule, NotScheduled, cancel_scheduled, cancel_scheduled_job, schedule_ingest, validate_start_at
from .schemas import CancelledOut, CancelOut, IngestAccepted, IngestIn, JobOut

router = Router(tags=["ingest"], auth=STAFF)

ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut}
JobStatus = Literal["scheduled", "queued", "running", "done", "error", "cancelled"]
JobOrdering = Literal["created_at", "-created_at", "finished_at", "-finished_at"]
BUSY = (IngestJob.Status.SCHEDULED, IngestJob.Status.QUEUED, IngestJob.Status.RUNNING)


def job_out(job: IngestJob) -> dict:
    return {
        "id": job.pk,
        "game_id": job.game_id,
        "extension_id": job.extension_id,
        "booklet_id": job.extension_id or job.game_id,
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
        "url": reverse("api:oracle-ingest-detail", args=[job.pk]),
        "events_url": reverse("api:oracle-ingest-events", args=[job.pk]),
    }


@router.post(
    "/games/ingest",
    response={202: IngestAccepted, 409: ErrorOut, 413: ErrorOut, 429: ErrorOut, **ERRORS},
    throttle=upload_throttles(),
    url_name="oracle-ingest-create",
)
def create_ingest(request, pdf: File[UploadedFile], data: Form[IngestIn]):
    """Upload a booklet PDF; answers 202 with the job and its events stream.

    Bad input (not a PDF by its bytes, encrypted, empty, too large, too many pages, unknown
    game) gets a 4xx and nothing is written; so does a booklet that already has an ingestion
    scheduled, queued or running (409: cancel it or wait for its end). Without `language`, a new
    booklet's language is detected from its text when it is read."""
    when = None
    if data.start_later and not data.scheduled_start_at:
        raise invalid_field("scheduled_start_at", _("Un démarrage planifié a besoin de sa date et de son heure."))
    if data.scheduled_start_at:
        try:
            when = parse_start_at(data.scheduled_start_at)
        except ValueError as exc:
            raise invalid_field("scheduled_start_at", str(exc)) from None
    try:
        job = services.create_ingest(
            pdf_path_or_file=pdf,
            game=str(data.game_id) if data.game_id else None,
            new_game_name=data.new_game_name or None,
            kind=data.kind,
            name=data.name or None,
            language=language_choice.requested_language(data.language),
            bgg_id=data.bgg_id,
            user=request.auth,
        )
    except services.InvalidPdf as exc:
        raise HttpError(exc.status, str(exc)) from None
    except services.BookletBusy as exc:
        raise HttpError(409, str(exc)) from None
    except services.UnknownGame as exc:
        if data.game_id:
            raise HttpError(404, str(exc)) from None
        raise invalid_field("new_game_name", str(exc)) from None
    if when is not None:
        schedule_ingest(job, when)
    else:
        services.enqueue(job)
    job.refresh_from_db()
    return Status(202, accepted(job))


def parse_start_at(value: str) -> datetime:
    """ISO 8601 (without a zone: the site's time), in the future, at most 7 days ahead (else
    ValueError → 422)."""
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


@router.get("/ingest", response={200: list[JobOut], **ERRORS}, url_name="oracle-ingest-list")
@paginate(Pagination)
def list_jobs(
    request,
    game_id: UUID | None = None,
    booklet_id: UUID | None = None,
    status: JobStatus | None = None,
    ordering: JobOrdering = "-created_at",
):
    """Ingestion jobs, newest first; filtered by game, booklet (the game's id for its base
    booklet) and status."""
    jobs = IngestJob.objects.select_related("game", "extension")
    if game_id:
        jobs = jobs.filter(game_id=game_id)
    if booklet_id:
        jobs = jobs.filter(extension_id=booklet_id) | jobs.filter(game_id=booklet_id, extension=None)
    if status:
        jobs = jobs.filter(status=status)
    return MappedPage(jobs.order_by(ordering, "pk"), job_out)


@router.get("/ingest/{job_id}", response={200: JobOut, **ERRORS}, url_name="oracle-ingest-detail")
def get_job(request, job_id: UUID):
    """A job's status, current act, per-act progress and error message."""
    return job_out(get_object_or_404(IngestJob.objects.select_related("game", "extension"), pk=job_id))


@router.get("/games/{game_id}/jobs", response={200: list[JobOut], **ERRORS}, url_name="oracle-game-jobs")
@paginate(Pagination)
def list_game_jobs(request, game_id: UUID):
    """The ingestion jobs of a game, newest first (`GET /api/ingest?game_id=` filters more)."""
    game = get_object_or_404(Game, pk=game_id)
    return MappedPage(game.ingest_jobs.select_related("game", "extension").order_by("-created_at", "pk"), job_out)


@router.get(
    "/ingest/{job_id}/events",
    response=ERRORS,
    url_name="oracle-ingest-events",
    openapi_extra={"responses": {200: {"description": "text/event-stream of act, warning, quota_pause, done, error",
                                       "content": {"text/event-stream": {"schema": {"type": "string"}}}}}},
)
async def stream_job_events(request, job_id: UUID, last_event_id: int = 0):
    """Server-sent events of a job: replays the events after `Last-Event-ID` (header) or
    `?last_event_id=`, then follows the job until its `done` or `error` event."""
    job = await IngestJob.objects.select_related("game", "extension", "extension__game").filter(pk=job_id).afirst()
    if job is None:
        raise Http404
    header = request.headers.get("Last-Event-ID", "")
    start = int(header) if header.isascii() and header.isdigit() and len(header) <= 18 else last_event_id  # int() refuses 4,300 digits
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
    "/ingest/{job_id}/scheduled",
    response={200: CancelledOut, 409: ErrorOut, **ERRORS},
    url_name="oracle-ingest-scheduled-cancel",
)
def cancel_job_before_start(request, job_id: UUID):
    """Cancel this ingestion before it starts (planned by the admin, or resting after an LLM
    quota): remove its schedule, its stored PDF and the rows its upload created. 409 when the
    job is not scheduled (it started, or ended)."""
    job = get_object_or_404(IngestJob.objects.select_related("game", "extension"), pk=job_id)
    try:
        cancelled = cancel_scheduled_job(job)
    except NotScheduled as exc:
        raise HttpError(409, str(exc)) from None
    return Status(200, {"job_id": cancelled.job_id, "deleted": cancelled.deleted})


@router.delete(
    "/games/{game_id}/scheduled",
    response={200: CancelledOut, 409: ErrorOut, **ERRORS},
    url_name="oracle-game-scheduled-cancel",
)
def cancel_scheduled_ingest(request, game_id: UUID):
    """Cancel the game's one ingestion that has not started yet, as
    `DELETE /api/ingest/{job_id}/scheduled` does. 409 when none is waiting, and when several
    are (a base booklet and an expansion): the game does not say which one to cancel, the
    job's endpoint does."""
    game = get_object_or_404(Game, pk=game_id)
    try:
        cancelled = cancel_scheduled(game)
    except (NotScheduled, AmbiguousSchedule) as exc:
        raise HttpError(409, str(exc)) from None
    return Status(200, {"job_id": cancelled.job_id, "deleted": cancelled.deleted})


@router.post("/ingest/{job_id}/cancel", response={202: CancelOut, 409: ErrorOut, **ERRORS}, url_name="oracle-ingest-cancel")
def cancel_job(request, job_id: UUID):
    """Cancel a queued or scheduled job at once (a scheduled one loses its schedule and keeps
    its booklet), or ask a running job's worker to stop (it does between two pages or batches,
    within seconds; its caches are kept for « Relancer »). A finished job answers 409.
    `DELETE /api/ingest/{id}/scheduled` also removes what a scheduled upload created."""
    job = get_object_or_404(IngestJob, pk=job_id)
    outcome = request_cancel(job)
    if not outcome:
        raise HttpError(409, _("Cette ingestion n'est ni planifiée, ni en file, ni en cours (%(status)s).") % {"status": job.get_status_display()})
    return Status(202, {"job_id": job.pk, "outcome": outcome})


@router.post("/ingest/{job_id}/retry", response={202: JobOut, 409: ErrorOut, **ERRORS}, url_name="oracle-ingest-retry")
def retry_job(request, job_id: UUID):
    """« Relancer »: queue a failed or cancelled job again (it resumes from its caches), or
    release a queued job whose worker cluster died (with Redis as broker: one queued for longer
    than INGEST_QUEUED_LOST_AFTER_S is enqueued again). 409 for any other job, and for one
    whose PDF is no longer stored (upload the booklet again)."""
    job = get_object_or_404(IngestJob.objects.select_related("game", "extension"), pk=job_id)
    try:
        services.relaunch(job)
    except services.CannotRelaunch as exc:
        raise HttpError(409, str(exc)) from None
    job.refresh_from_db()
    return Status(202, job_out(job))


@router.post(
    "/booklets/{booklet_id}/reingest",
    response={202: IngestAccepted, 409: ErrorOut, **ERRORS},
    url_name="oracle-booklet-reingest",
)
def reingest_booklet(request, booklet_id: UUID):
    """Read a booklet again from its stored PDF (after a change of pipeline or embedder): a
    new job, followed like an upload's. 409 while one of its ingestions is waiting or
    running, or when it has no stored PDF."""
    booklet = find_booklet(booklet_id)
    if booklet is None:
        raise Http404
    if IngestJob.objects.filter(game=booklet.game, extension=booklet.extension, status__in=BUSY).exists():
        raise HttpError(409, _("Une ingestion de ce livret est déjà planifiée, en file ou en cours."))
    if not booklet.pdf:
        raise HttpError(409, _("Ce livret n'a pas de PDF enregistré : téléversez-le."))
    return Status(202, accepted(services.reingest(booklet, request.auth)))


def sync_index(collection: str) -> None:
    """The web process owns the local index: make a finished booklet searchable at once."""
    import logging

    from games.indexing import sync_if_changed
    from runtime import components

    try:
        sync_if_changed(components.vector_store(), [collection])
    except Exception:  # noqa: BLE001 - the next search syncs again; the stream must go on
        logging.getLogger(__name__).exception("sync of %s after ingestion failed", collection)
