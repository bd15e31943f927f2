"""Queued jobs whose django-q2 task was claimed by a cluster that is gone.

With the ORM broker a cluster claims a task by moving its `OrmQ.lock` to now + `retry`
(3 h 10 min here) before its worker starts it; a cluster killed in between leaves the job
`queued` and the task invisible until the claim expires. A claim made before every live
cluster was born belongs to a dead one: it is released (lock = now) so the next poll takes
it. A queued job with no task at all is enqueued again. Starting twice is harmless: the job
moves queued → running once (`IngestJob.transition`), a second start is a no-op.

The recovery sweep (web processes every RECOVERY_SWEEP_INTERVAL_S, each cluster worker at
start) calls `release_stuck_jobs`; health lists them; the admin's « Relancer » uses `requeue`.
With Redis as broker only the no-task case is seen (a pulled Redis task is not kept).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from .models import IngestJob

log = logging.getLogger(__name__)
GRACE = timedelta(seconds=30)  # an enqueue and its job row are written a moment apart


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
        if task.get("func") == "ingest.tasks.run_ingest_job" and task.get("args"):
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


def find_stuck_jobs(now: datetime | None = None) -> list[StuckJob]:
    now = now or timezone.now()
    queued = IngestJob.objects.filter(status=IngestJob.Status.QUEUED, updated_at__lt=now - GRACE)
    if not queued.exists():
        return []
    tasks = _tasks_by_job()
    born = _oldest_live_cluster_birth()
    stuck = []
    for job in queued.select_related("game", "extension"):
        row = tasks.get(str(job.pk))
        if row is None:
            if not settings.REDIS_URL:  # a Redis list cannot be searched cheaply: unknown, not stuck
                stuck.append(StuckJob(job, None))
            continue
        claimed = _claimed_at(row)
        if claimed is not None and (born is None or claimed < born):
            stuck.append(StuckJob(job, row))
    return stuck


def _release(entry: StuckJob) -> bool:
    from django_q.models import OrmQ

    from . import services

    if entry.task is None:
        services.enqueue(entry.job)
        return True
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
    for entry in find_stuck_jobs(now=timezone.now() + GRACE):
        if entry.job.pk == job.pk:
            return _release(entry)
    return False
