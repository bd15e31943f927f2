"""Ingest jobs never stay `running` after their worker died.

While a job runs in a django-q2 worker, `job_heartbeat` refreshes a key in the shared cache.
A `running` job without a fresh heartbeat lost its worker: `requeue_orphaned_jobs` puts it
back in the queue, where it resumes from its caches (OCR, hierarchy, context, conflicts are
cached per booklet by the stages). A job whose worker died INGEST_MAX_ATTEMPTS times (a PDF
that kills the worker) fails instead, and one asked to stop (`cancel_requested`) ends cancelled. A `queued` job a dead cluster had claimed (or, with
Redis, whose task was lost) is released (`release_stuck_jobs`, below).

`sweep` runs at the start of each web process and then every RECOVERY_SWEEP_INTERVAL_S, and
when a django-q2 cluster worker starts (registered in `ingest/apps.py`).
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from .cancellation import acknowledge
from .models import IngestJob
from .progress import Text, message_data
from .queue import RUN_INGEST_TASK, enqueue

log = logging.getLogger(__name__)
GRACE = timedelta(seconds=30)  # an enqueue and its job row are written a moment apart


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
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.INGEST_STALE_AFTER_S)
    result = {"requeued": 0, "failed": 0, "cancelled": 0}
    running = IngestJob.objects.filter(status=IngestJob.Status.RUNNING, updated_at__lt=cutoff)
    for job in running:
        if has_fresh_heartbeat(job.pk, now.timestamp()):
            continue
        result[_recover(job)] += 1
    return result


def _recover(job) -> str:
    if job.cancel_requested:
        # Asked to stop before its worker died: it ends « annulée » as its worker would have.
        # Requeued, it would run on once the cache's flag (FLAG_TTL_S) had gone.
        acknowledge(job, job)
        return "cancelled"
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
        enqueue(job)
    return "requeued"


def sweep() -> dict[str, int]:
    """Requeue or fail the jobs of dead workers, release the queued jobs of dead clusters;
    never raises (it runs at start-up and in a background thread)."""
    try:
        return {**requeue_orphaned_jobs(), **release_stuck_jobs()}
    except Exception:
        log.exception("ingest recovery sweep failed")
        return {}


# Queued jobs whose django-q2 task was claimed by a cluster that is gone.
#
# With the ORM broker a cluster claims a task by moving its `OrmQ.lock` to now + `retry`
# (3 h 10 min here) before its worker starts it; a cluster killed in between leaves the job
# `queued` and the task invisible until the claim expires. A claim made before every live
# cluster was born belongs to a dead one: it is released (lock = now) so the next poll takes
# it. A queued job with no task at all is enqueued again. Starting twice is harmless: the job
# moves queued → running once (`IngestJob.transition`), a second start is a no-op.
#
# The recovery sweep (web processes every RECOVERY_SWEEP_INTERVAL_S, each cluster worker at
# start) calls `release_stuck_jobs`; health lists them; the admin's « Relancer » uses `requeue`.
#
# With Redis as broker a pulled task is not kept (a cluster killed with it, or a Redis restarted
# without persistence, loses it) and the broker's list cannot be searched cheaply: a job queued
# for INGEST_QUEUED_LOST_AFTER_S is taken as task-less and enqueued again. The sweep waits until
# no ingestion runs and a cluster is alive (a job may queue behind a long one; nobody would
# take it anyway); « Relancer » does not wait — a second task of a job is a no-op.


@dataclass
class StuckJob:
    job: IngestJob
    task: object | None  # the OrmQ row, None when the job has no task


def _tasks_by_job() -> dict[str, object]:
    """The ORM broker's rows of ingest tasks, by job id (few rows: queue_limit)."""
    if settings.REDIS_URL:
        return {}
    from django_q.models import OrmQ

    found = {}
    for row in OrmQ.objects.all():
        task = row.task if isinstance(row.task, dict) else {}
        if task.get("func") == RUN_INGEST_TASK and task.get("args"):
            found[str(task["args"][0])] = row
    return found


def _oldest_live_cluster_birth() -> datetime | None:
    """The birth of the oldest live cluster (a claim made before it is surely a dead
    cluster's); None when no cluster reports."""
    from django_q.status import Stat

    births = [stat.tob for stat in Stat.get_all() if getattr(stat, "tob", None)]
    return min(births) if births else None


def _claimed_at(row) -> datetime | None:
    """When a cluster claimed the task (None if unclaimed: the lock is in the past)."""
    now = timezone.now()
    if row.lock is None or row.lock <= now:
        return None
    return row.lock - timedelta(seconds=settings.Q_CLUSTER["retry"])


def find_stuck_jobs(now: datetime | None = None, *, asked: bool = False) -> list[StuckJob]:
    """Queued jobs no cluster will start; `asked`: for « Relancer » (see above, Redis)."""
    now = now or timezone.now()
    queued = IngestJob.objects.filter(status=IngestJob.Status.QUEUED, updated_at__lt=now - GRACE)
    if not queued.exists():
        return []
    tasks = _tasks_by_job()
    born = _oldest_live_cluster_birth()
    lost_before = _redis_lost_before(now, born, asked)
    stuck = []
    for job in queued.select_related("game", "extension"):
        row = tasks.get(str(job.pk))
        if row is None:
            if not settings.REDIS_URL or (lost_before is not None and job.updated_at < lost_before):
                stuck.append(StuckJob(job, None))
            continue
        claimed = _claimed_at(row)
        if claimed is not None and (born is None or claimed < born):
            stuck.append(StuckJob(job, row))
    return stuck


def _redis_lost_before(now: datetime, born: datetime | None, asked: bool) -> datetime | None:
    """With Redis, a queued job last moved before this time has lost its task (None: none
    is taken as lost now — no Redis, or the sweep while a job runs or no cluster lives)."""
    if not settings.REDIS_URL:
        return None
    if not asked and (born is None or IngestJob.objects.filter(status=IngestJob.Status.RUNNING).exists()):
        return None
    return now - timedelta(seconds=settings.INGEST_QUEUED_LOST_AFTER_S)


def _release(entry: StuckJob) -> bool:
    from django_q.models import OrmQ

    if entry.task is None:
        # Moved "again" to queued: its time restarts, so a Redis job is not enqueued at every sweep.
        moved = entry.job.transition(IngestJob.Status.QUEUED, allowed_from=(IngestJob.Status.QUEUED,))
        if moved:  # else it started meanwhile
            enqueue(entry.job)
        return moved
    # Only if still the same claim: a live cluster may have taken it meanwhile.
    return bool(OrmQ.objects.filter(pk=entry.task.pk, lock=entry.task.lock).update(lock=timezone.now()))


def release_stuck_jobs() -> dict[str, int]:
    """Release the claims of dead clusters and enqueue task-less queued jobs; never raises."""
    try:
        released = 0
        for entry in find_stuck_jobs():
            if _release(entry):
                released += 1
                log.warning("ingest %s was stuck in the queue (its cluster is gone): released", entry.job.pk)
        return {"stuck_released": released}
    except Exception:
        log.exception("releasing stuck ingest jobs failed")
        return {}


def requeue(job: IngestJob) -> bool:
    """The admin's « Relancer » on a queued job: release it if it is stuck."""
    for entry in find_stuck_jobs(now=timezone.now() + GRACE, asked=True):
        if entry.job.pk == job.pk:
            return _release(entry)
    return False
