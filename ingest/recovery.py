"""Ingest jobs never stay `running` after their worker died.

While a job runs in a django-q2 worker, `job_heartbeat` refreshes a key in the shared cache.
A `running` job without a fresh heartbeat lost its worker: `requeue_orphaned_jobs` puts it
back in the queue, where it resumes from its caches (OCR, hierarchy, context, conflicts are
cached per booklet by the stages). A job whose worker died INGEST_MAX_ATTEMPTS times (a PDF
that kills the worker) fails instead. A `queued` job a dead cluster had claimed is released
(`ingest/stuck_jobs.py`).

`sweep` runs at the start of each web process and then every RECOVERY_SWEEP_INTERVAL_S, and
when a django-q2 cluster worker starts (registered in `ingest/apps.py`).
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

log = logging.getLogger(__name__)


def heartbeat_key(job_id) -> str:
    return f"oracle-ingest-heartbeat:{job_id}"


def beat(job_id) -> None:
    cache.set(heartbeat_key(job_id), timezone.now().timestamp(), timeout=int(settings.INGEST_STALE_AFTER_S * 2) + 1)


def has_fresh_heartbeat(job_id, now: float) -> bool:
    last = cache.get(heartbeat_key(job_id))
    return last is not None and now - last < settings.INGEST_STALE_AFTER_S


@contextmanager
def job_heartbeat(job_id):
    """Refresh the job's heartbeat every INGEST_HEARTBEAT_S while the block runs."""
    stop = threading.Event()

    def loop():
        while not stop.wait(settings.INGEST_HEARTBEAT_S):
            try:
                beat(job_id)
            except Exception:  # a cache hiccup must not stop the ingestion
                log.warning("heartbeat of ingest %s failed", job_id, exc_info=True)

    beat(job_id)
    thread = threading.Thread(target=loop, name=f"heartbeat-{job_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)
        cache.delete(heartbeat_key(job_id))


def requeue_orphaned_jobs(now=None) -> dict[str, int]:
    """Requeue `running` jobs whose worker stopped beating; fail those that keep dying."""
    from .models import IngestJob

    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.INGEST_STALE_AFTER_S)
    result = {"requeued": 0, "failed": 0}
    running = IngestJob.objects.filter(status=IngestJob.Status.RUNNING, updated_at__lt=cutoff)
    for job in running:
        if has_fresh_heartbeat(job.pk, now.timestamp()):
            continue
        result["failed" if _recover(job) == "failed" else "requeued"] += 1
    return result


def _recover(job) -> str:
    from . import services
    from .progress import Text, message_data
    from .models import IngestJob

    if job.attempts >= settings.INGEST_MAX_ATTEMPTS:
        message = Text(gettext_noop(
            "Le traitement de ce livret s'est arrêté brutalement %(n)d fois (PDF trop lourd ou piégé ?). "
            "Vérifiez le fichier puis relancez l'ingestion."
        ), {"n": job.attempts})
        with transaction.atomic():  # status and final event seen together by the event streams
            if job.transition(IngestJob.Status.ERROR, allowed_from=(IngestJob.Status.RUNNING,), error=str(message), finished_at=timezone.now()):
                job.emit("error", message_data(message))
        return "failed"
    # The atomic transition makes the requeue happen once, whichever process sweeps first.
    if job.transition(IngestJob.Status.QUEUED, allowed_from=(IngestJob.Status.RUNNING,)):
        log.warning("ingest %s lost its worker during %s: queued again", job.pk, job.current_act)
        job.emit("warning", message_data(Text(gettext_noop("Le traitement a été interrompu ; il reprend là où il s'était arrêté."))))
        services.enqueue(job)
    return "requeued"


def sweep() -> dict[str, int]:
    """Requeue or fail the jobs of dead workers; never raises (it runs at start-up and in a
    background thread)."""
    try:
        return {**requeue_orphaned_jobs(), **_stuck_queued_jobs()}
    except Exception:
        log.exception("ingest recovery sweep failed")
        return {}


def _stuck_queued_jobs() -> dict[str, int]:
    from .stuck_jobs import release_stuck_jobs  # queued jobs a dead cluster had claimed

    return release_stuck_jobs()
