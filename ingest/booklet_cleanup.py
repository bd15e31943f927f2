"""What the ingest app keeps for a booklet, handed over when the booklet is deleted
(`games.services`): a booklet whose ingestion is running is refused (`booklets_busy`: cancel
the job first, its worker stops within seconds); otherwise its jobs go with it — waiting ones
lose their schedule, and none is left that « Relancer » could only fail, its PDF gone — and
its uploaded PDFs and stage caches (OCR, hierarchy, contexts, conflicts, vectors) are removed."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db.models import Q
from django_q.models import Schedule

from games.services import BookletBusy, busy_message

from .models import IngestJob
from .quota_pause import schedule_name
from .scheduling import STAGE_CACHE_VERSIONS, VECTOR_CACHE_VERSIONS
from .stages.cache import booklet_cache_files


def jobs_of(booklets):
    owners = Q(pk__in=[])
    for booklet in booklets:
        owners |= Q(game=booklet.game, extension=booklet.extension)
    return IngestJob.objects.filter(owners)


def running_ingestions(sender, booklets, **kwargs) -> list[str]:
    """« Heat — Pluie » (its job id) for each running ingestion of these booklets."""
    running = jobs_of(booklets).filter(status=IngestJob.Status.RUNNING).select_related("game", "extension")
    return [f"« {job.booklet_name} » ({job.pk})" for job in running.order_by("created_at")]


def on_booklet_deleting(sender, booklet, **kwargs) -> list[Path]:
    jobs = jobs_of([booklet])
    waiting = list(jobs.filter(status__in=(IngestJob.Status.QUEUED, IngestJob.Status.SCHEDULED)))
    # Write before checking: once cancelled (and locked until this transaction ends), a waiting
    # job can no longer be started by a worker (its start is a conditional QUEUED → RUNNING
    # update), so the check below cannot miss one that starts in between.
    jobs.filter(pk__in=[job.pk for job in waiting], status__in=(IngestJob.Status.QUEUED, IngestJob.Status.SCHEDULED)).update(
        status=IngestJob.Status.CANCELLED)
    running = running_ingestions(sender, [booklet])
    if running:  # started since the deletion asked: the transaction rolls back
        raise BookletBusy(busy_message(running))
    Schedule.objects.filter(name__in=[schedule_name(job) for job in waiting]).delete()
    media = Path(settings.MEDIA_ROOT)
    uploads = [media / path for path in jobs.exclude(pdf_path="").values_list("pdf_path", flat=True)]
    jobs.delete()  # an extension's would go with it; a base booklet's stay with the game otherwise
    caches = booklet_cache_files(Path(settings.INGEST_CACHE_DIR), booklet.slug, STAGE_CACHE_VERSIONS, VECTOR_CACHE_VERSIONS)
    return uploads + caches


def connect(app_config) -> None:
    from games.services import booklet_deleting, booklets_busy

    booklets_busy.connect(running_ingestions, dispatch_uid="ingest-running-ingestions")
    booklet_deleting.connect(on_booklet_deleting, dispatch_uid="ingest-booklet-cleanup")
