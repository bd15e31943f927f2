"""Deferred ingestion: jobs started later on purpose (the admin picked a time) or after an
LLM quota reset. Both are django-q2 one-off schedules stored in the database, so they
survive a restart of the web and worker processes; a start time that passed while Oracle
was down fires as soon as the cluster's scheduler runs again.

A paused job is `scheduled`, never `error` (docs/architecture.md, decisions).
"""

from __future__ import annotations

import logging
import shutil
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_q.models import Schedule

from . import coordinator
from .models import IngestJob
from .quota_pause import RUN_TASK, arm, schedule_name
from .stages import conflicts, context, embed_cache, hierarchy, ocr
from .stages.cache import booklet_cache_files

log = logging.getLogger(__name__)

MAX_SCHEDULE_AHEAD = timedelta(days=7)
# The stages that cache per booklet: a cancelled ingestion removes their files.
STAGE_CACHE_VERSIONS = (ocr.CACHE_VERSION, hierarchy.CACHE_VERSION, context.CACHE_VERSION, conflicts.CACHE_VERSION)
VECTOR_CACHE_VERSIONS = (embed_cache.CACHE_VERSION,)  # one file per embedder


class NotScheduled(Exception):
    """The game has no ingestion waiting to start (the API answers 409)."""


class AmbiguousSchedule(Exception):
    """The game has several ingestions waiting: cancelling by game would have to guess (409)."""


class InvalidStartTime(ValueError):
    """`scheduled_start_at` is in the past, too far ahead or without a time zone (422)."""


@dataclass(frozen=True)
class CancelledIngest:
    job_id: str
    deleted: str  # "game" | "extension" | "job": the largest row the cancellation removed


def validate_start_at(when: datetime, now: datetime | None = None) -> datetime:
    """Check a requested start time: in the future, at most 7 days ahead. A time without a zone
    is the site's (TIME_ZONE), as every page shows times and as the wizard's admin types it,
    whatever their browser's zone; on a daylight-saving night, zoneinfo's first reading."""
    now = now or timezone.now()
    if when.tzinfo is None:
        when = timezone.make_aware(when)
    if when <= now:
        raise InvalidStartTime(_("L'heure de démarrage doit être dans le futur."))
    if when > now + MAX_SCHEDULE_AHEAD:
        raise InvalidStartTime(_("L'heure de démarrage ne peut pas dépasser 7 jours."))
    return when


def schedule_ingest(job: IngestJob, when: datetime) -> IngestJob:
    """Put `job` on hold until `when` (the admin asked for a later start)."""
    with transaction.atomic():
        moved = job.transition(
            IngestJob.Status.SCHEDULED,
            allowed_from=(IngestJob.Status.QUEUED, IngestJob.Status.SCHEDULED),
            pause_reason=IngestJob.PauseReason.USER,
            scheduled_at=when,
        )
        if not moved:
            raise ValueError(f"job {job.pk} is {job.status}: only a queued job can be scheduled")
        arm(job, when)
    job.emit("scheduled", {"reason": "user", "scheduledAt": when.isoformat()})
    return job


def run_scheduled_job(job_id: str) -> None:
    """django-q2 task fired by a job's schedule: start (or resume) the ingestion."""
    job = IngestJob.objects.filter(pk=job_id).first()
    if job is None:
        log.info("scheduled ingest %s no longer exists", job_id)
        return
    if not job.transition(IngestJob.Status.QUEUED, allowed_from=(IngestJob.Status.SCHEDULED,)):
        log.info("scheduled ingest %s is %s: nothing to start", job_id, job.status)
        return
    Schedule.objects.filter(name=schedule_name(job)).delete()
    job.emit("resumed", {"reason": job.pause_reason or "user"})
    coordinator.run_job(str(job.pk))


def cancel_scheduled(game) -> CancelledIngest:
    """Cancel the game's one waiting ingestion (`DELETE /api/games/{id}/scheduled`). A game may
    have several (its base booklet and an expansion): the game alone does not say which one
    the admin meant, so that is refused (AmbiguousSchedule) rather than a guess — the job's own
    endpoint (`cancel_scheduled_job`) names it."""
    waiting = list(IngestJob.objects.filter(game=game, status=IngestJob.Status.SCHEDULED).select_related("game", "extension"))
    if not waiting:
        raise NotScheduled(_("Aucune ingestion planifiée pour ce jeu."))
    if len(waiting) > 1:
        raise AmbiguousSchedule(_(
            "Plusieurs ingestions de ce jeu sont planifiées (%(booklets)s) : annulez celle que vous voulez par son "
            "identifiant (DELETE /api/ingest/{id}/scheduled)."
        ) % {"booklets": ", ".join(f"« {job.booklet_name} » {job.pk}" for job in waiting)})
    return cancel_scheduled_job(waiting[0])


def cancel_scheduled_job(job: IngestJob) -> CancelledIngest:
    """Cancel this waiting ingestion: its schedule, its stored PDF, its page images, the rows it
    created and the booklet's stage caches (OCR, hierarchy, contexts, conflicts: kept for the
    retry of a failed or paused job, of no use once the job is cancelled)."""
    from games.index_state import mark_changed

    job_id = str(job.pk)  # a deleted row's pk is None
    with transaction.atomic():
        if not job.transition(IngestJob.Status.CANCELLED, allowed_from=(IngestJob.Status.SCHEDULED,)):
            raise _not_scheduled_now(job)
        Schedule.objects.filter(name=schedule_name(job)).delete()
        booklet = job.booklet
        if _booklet_held_other_work(job):  # a re-upload: the booklet stays as it was
            files = _give_back_previous_pdf(job, booklet)
            job.delete()  # rows of its own are the booklet's, swapped in by an earlier attempt: they stay
            deleted = "job"
        else:
            files = _booklet_files(job, booklet)
            deleted = _delete_created_rows(job)
        mark_changed(booklet.collection)
    _remove_files(files)
    return CancelledIngest(job_id=job_id, deleted=deleted)


def _not_scheduled_now(job: IngestJob) -> NotScheduled:
    """Why a job read as scheduled could not be cancelled: it started or ended meanwhile, or
    another request cancelled it first (and deleted its row)."""
    status = IngestJob.objects.filter(pk=job.pk).values_list("status", flat=True).first()
    if status is None:
        return NotScheduled(_("Cette ingestion vient d'être annulée."))
    return NotScheduled(_("Cette ingestion n'est pas planifiée (%(status)s).") % {"status": IngestJob.Status(status).label})


def restore_scheduled(now: datetime | None = None) -> int:
    """Give every `scheduled` job a schedule again (a lost row, a restore from backup).

    Called when a worker starts and after `migrate`. A time that already passed becomes
    "now": the cluster starts the job at once. Returns how many schedules were re-created.
    """
    now = now or timezone.now()
    restored = 0
    for job in IngestJob.objects.filter(status=IngestJob.Status.SCHEDULED):
        if Schedule.objects.filter(name=schedule_name(job)).exists():
            continue
        arm(job, max(job.scheduled_at or now, now))
        restored += 1
    if restored:
        log.info("re-armed %d scheduled ingest(s)", restored)
    return restored


def _booklet_files(job: IngestJob, booklet) -> list[Path]:
    media = Path(settings.MEDIA_ROOT)
    files = [media / job.pdf_path] if job.pdf_path else []
    if booklet.pdf:
        files.append(media / booklet.pdf.name)
    caches = booklet_cache_files(
        Path(settings.INGEST_CACHE_DIR), booklet.slug, STAGE_CACHE_VERSIONS, VECTOR_CACHE_VERSIONS
    )
    return files + [booklet.images_dir] + caches


def _booklet_held_other_work(job: IngestJob) -> bool:
    """The cancelled job re-uploads a booklet that other jobs (or its rules) already use."""
    from games.models import Chunk

    same_booklet = IngestJob.objects.filter(game=job.game, extension=job.extension).exclude(pk=job.pk)
    return same_booklet.exists() or Chunk.objects.filter(game=job.game, extension=job.extension).exclude(ingest_job=job).exists()


def _give_back_previous_pdf(job: IngestJob, booklet) -> list[Path]:
    """The upload pointed the booklet at the new PDF: point it back at the one its other
    jobs read; only the new file goes (its rules, page images and caches stay)."""
    from .services import validate_pdf

    media = Path(settings.MEDIA_ROOT)
    owner = booklet.owner
    previous = (
        IngestJob.objects.filter(game=job.game, extension=job.extension)
        .exclude(pk=job.pk)
        .exclude(pdf_path="")
        .exclude(pdf_path=job.pdf_path)
        .order_by("-created_at")
        .first()
    )
    pointed_by_this_upload = owner.pdf.name == job.pdf_path and not _rules_read_from(job)
    if previous is not None and (media / previous.pdf_path).exists() and pointed_by_this_upload:
        owner.pdf.name = previous.pdf_path
        try:
            owner.pdf_pages = validate_pdf(media / previous.pdf_path).pages
        except Exception:  # noqa: BLE001 - the count is a comfort; the file is what matters
            log.warning("could not count the pages of %s", previous.pdf_path, exc_info=True)
        owner.save(update_fields=["pdf", "pdf_pages"])
    if not job.pdf_path or owner.pdf.name == job.pdf_path:
        return []  # nothing to go back to, or its rules were read from it: keep the file the booklet points at
    return [media / job.pdf_path]


def _rules_read_from(job: IngestJob) -> bool:
    """The booklet's rules come from the job's file: another job read it (this one re-reads
    the PDF the booklet serves, `POST /api/booklets/{id}/reingest`), or an earlier attempt of
    this job swapped its rows in. Uploads no longer point a booklet that has a PDF at the new
    one (ingest.booklet_swap), so a re-read was taken for such an upload: cancelling it gave
    the booklet an older PDF beside the rules of this one, and deleted this one."""
    others = IngestJob.objects.filter(game=job.game, extension=job.extension, pdf_path=job.pdf_path).exclude(pk=job.pk)
    return others.exists() or job.chunks.exists()


def _delete_created_rows(job: IngestJob) -> str:
    """The booklet row goes with its ingestion; the game too when this upload created it and
    it holds no other work (a game made beforehand keeps its cards, questions and terms)."""
    game = job.game
    if job.extension_id:
        job.extension.delete()  # its jobs and rules go with it
        if job.created_game and _holds_nothing_else(game, job):  # an expansion uploaded under a new game's name
            game.delete()
            return "game"
        return "extension"
    if job.created_game and _holds_nothing_else(game, job):
        game.delete()
        return "game"
    if game.pdf.name and game.pdf.name == job.pdf_path:  # its file goes: the game has no rules PDF again
        game.pdf.name, game.pdf_pages = "", None
        game.save(update_fields=["pdf", "pdf_pages"])
    job.chunks.all().delete()
    job.delete()
    return "job"


def _holds_nothing_else(game, job: IngestJob) -> bool:
    """No other ingestion, booklet, rules PDF or chunk (forum threads) lives in the game."""
    return not (
        game.ingest_jobs.exclude(pk=job.pk).exists()
        or game.extensions.exists()
        or game.pdf.name not in ("", job.pdf_path)
        or game.chunks.exclude(ingest_job=job).exists()
    )


def _remove_files(paths: list[Path]) -> None:
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists():
            path.unlink()


_sweeping = threading.local()


def install_schedules(proc_name: str = "", **_signal_kwargs) -> None:
    """Start-up sweep (after `migrate`, and when a django-q2 worker spawns): re-arm the
    scheduled ingests and keep the daily BGG forum sync in line with the settings."""
    from games.bgg_sync import ensure_forum_sync_schedule
    from games.meta_schedule import ensure_meta_sync_schedules
    from games.schedules import schedules_locked

    # django-q2's sync mode (Q_SYNC, tests) runs every task through a worker in the calling
    # process and sends post_spawn each time: that is no start-up, and sweeping there would
    # run due schedules inside the scheduler that is running them.
    if proc_name == "MainProcess" or getattr(_sweeping, "active", False):
        return
    _sweeping.active = True
    try:
        # Every worker sweeps when it starts: one at a time across processes, or two would each
        # re-arm a job (the BGG and meta schedules take the same lock themselves).
        with schedules_locked():
            restore_scheduled()
        ensure_forum_sync_schedule()
        ensure_meta_sync_schedules()
        start_due_now()
    except Exception:  # never keep a worker from starting: the next start retries
        log.exception("could not install the ingest and BGG schedules")
    finally:
        _sweeping.active = False


def start_due_now() -> None:
    """Hand due ingest schedules to the queue now: django-q2's own scheduler loop first runs
    30 s after the cluster starts, too late for a time that passed while Oracle was down."""
    from django_q.scheduler import scheduler

    if Schedule.objects.filter(func=RUN_TASK, next_run__lte=timezone.now()).exists():
        scheduler()


def connect_startup_hooks(app_config) -> None:
    from django.db.models.signals import post_migrate
    from django_q.signals import post_spawn

    post_migrate.connect(install_schedules, sender=app_config, dispatch_uid="ingest-schedules-migrate")
    post_spawn.connect(install_schedules, dispatch_uid="ingest-schedules-spawn")
