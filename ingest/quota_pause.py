"""The one django-q2 ONCE schedule of a deferred ingest job: its name, arming it, and the
pause of a job that hit the LLM quota (the coordinator calls `pause_for_quota`; the
schedule fires `ingest.scheduling.run_scheduled_job`).

A paused job is `scheduled`, never `error` (docs/architecture.md, decisions)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.db import transaction
from django_q.models import Schedule

from rag.llm.base import ClaudeQuotaError

from .models import IngestJob

log = logging.getLogger(__name__)

QUOTA_GRACE = timedelta(minutes=2)  # the reset time is approximate: do not retry on the dot
RUN_TASK = "ingest.scheduling.run_scheduled_job"  # stored in schedule rows: keep the path


def schedule_name(job: IngestJob | str) -> str:
    return f"ingest-{getattr(job, 'pk', job)}"


def pending_schedule(job: IngestJob) -> Schedule | None:
    return Schedule.objects.filter(name=schedule_name(job)).first()


def arm(job: IngestJob, when: datetime) -> Schedule:
    """One ONCE schedule per job, replaced when the job is re-scheduled."""
    Schedule.objects.filter(name=schedule_name(job)).delete()
    return Schedule.objects.create(
        name=schedule_name(job),
        func=RUN_TASK,
        args=repr((str(job.pk),)),
        schedule_type=Schedule.ONCE,
        repeats=-1,
        next_run=when,
    )


def pause_for_quota(job: IngestJob, err: ClaudeQuotaError) -> datetime | None:
    """Park a job that hit the LLM quota; it resumes 2 minutes after the reset.

    Whatever ran before is kept (stages cache per chunk), so the resumption only asks what
    was not answered yet. Returns the retry time, or None when the job was not paused: a
    cancel was asked of it (the coordinator ends it cancelled), or it is no longer running.
    """
    reset_at = _aware(err.reset_at)
    retry_at = reset_at + QUOTA_GRACE
    with transaction.atomic():
        paused = job.transition(
            IngestJob.Status.SCHEDULED,
            allowed_from=(IngestJob.Status.QUEUED, IngestJob.Status.RUNNING, IngestJob.Status.SCHEDULED),
            where={"cancel_requested": False},  # asked to stop: it must not resume after the reset
            pause_reason=IngestJob.PauseReason.QUOTA,
            scheduled_at=retry_at,
        )
        if not paused:  # cancelled, or asked to: nothing to resume
            return None
        arm(job, retry_at)
    job.emit("quota_pause", {"resetAt": reset_at.isoformat(), "retryAt": retry_at.isoformat()})
    log.info("ingest %s paused by the LLM quota until %s", job.pk, retry_at.isoformat())
    return retry_at


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=dt_timezone.utc)
