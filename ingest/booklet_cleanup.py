"""What the ingest app keeps for a booklet, handed over when the booklet is deleted
(`games.catalogue.booklet_deleting`): its waiting jobs are stopped, and its uploaded PDFs and
stage caches (OCR, hierarchy, contexts, conflicts, vectors) are removed with it. A booklet
whose ingestion is running is refused: cancel the job first, its worker stops within seconds."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext as _
from django_q.models import Schedule

from games.catalogue import BookletBusy

from .job_schedule import schedule_name
from .models import IngestJob
from .scheduling import STAGE_CACHE_VERSIONS, VECTOR_CACHE_VERSIONS
from .stages.cache import booklet_cache_files


def on_booklet_deleting(sender, booklet, **kwargs) -> list[Path]:
    jobs = IngestJob.objects.filter(game=booklet.game, extension=booklet.extension)
    if jobs.filter(status=IngestJob.Status.RUNNING).exists():
        raise BookletBusy(_("Une ingestion de « %(name)s » est en cours : annulez-la d'abord.") % {"name": booklet.name})
    for job in jobs.filter(status__in=(IngestJob.Status.QUEUED, IngestJob.Status.SCHEDULED)):
        Schedule.objects.filter(name=schedule_name(job)).delete()
        job.transition(IngestJob.Status.CANCELLED, allowed_from=(IngestJob.Status.QUEUED, IngestJob.Status.SCHEDULED))
    media = Path(settings.MEDIA_ROOT)
    uploads = [media / path for path in jobs.exclude(pdf_path="").values_list("pdf_path", flat=True)]
    caches = booklet_cache_files(Path(settings.INGEST_CACHE_DIR), booklet.slug, STAGE_CACHE_VERSIONS, VECTOR_CACHE_VERSIONS)
    return uploads + caches


def connect(app_config) -> None:
    from games.catalogue import booklet_deleting

    booklet_deleting.connect(on_booklet_deleting, dispatch_uid="ingest-booklet-cleanup")
