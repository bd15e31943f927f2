"""Stopping a job: on request (admin action, the job page's button, `POST /api/ingest/{id}/cancel`)
and when it overruns its time budget (INGEST_SECONDS_PER_PAGE × pages, at least
INGEST_MIN_BUDGET_S).

A queued job is cancelled at once. A running one gets a flag in the shared cache (web and
worker share it); its worker checks the flag between stages and between pages or batches
(`Checkpoint`, called by the reporter on every progress) and stops within seconds. The
stages flush their caches (OCR, LLM answers) on the way out, so « Relancer » resumes from
what was done.

The request is also written on the job's row (`cancel_requested`), which does not expire: an
LLM quota hit before the next checkpoint does not pause a job asked to stop, it ends
« annulée » (ingest.coordinator). Paused, it resumed after the reset — past the cache flag's
24 h with a weekly quota — and ran on as if never cancelled.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from .models import IngestJob
from .progress import Text, message_data

CHECK_INTERVAL_S = 0.5  # a cache read per half second of work at most
FLAG_TTL_S = 24 * 3600


class JobStopped(Exception):
    """Raised between two pages or batches when the job must stop."""


class JobCancelled(JobStopped):
    pass


class JobOverBudget(JobStopped):
    pass


def flag_key(job_id) -> str:
    return f"oracle-ingest-cancel:{job_id}"


def request_cancel(job: IngestJob) -> str:
    """"cancelled" (queued or scheduled: done now), "requested" (running: its worker stops
    soon) or "" (nothing to cancel: finished). A scheduled job loses its schedule and keeps
    its booklet (« Relancer » starts it); `DELETE /api/ingest/{id}/scheduled` removes the
    rows a scheduled upload created instead (ingest.scheduling)."""
    from django_q.models import Schedule

    from .quota_pause import schedule_name

    waiting = (IngestJob.Status.QUEUED, IngestJob.Status.SCHEDULED)
    # The job may move between the two steps (running → scheduled by a quota pause, queued →
    # running): each is one guarded UPDATE, so one of them holds on the next round.
    for _round in range(3):
        with transaction.atomic():
            cancelled = job.transition(IngestJob.Status.CANCELLED, allowed_from=waiting, finished_at=timezone.now())
            if cancelled:
                Schedule.objects.filter(name=schedule_name(job)).delete()
        if cancelled:
            job.emit("error", {**message_data(cancelled_message()), "cancelled": True})
            return "cancelled"
        if IngestJob.objects.filter(pk=job.pk, status=IngestJob.Status.RUNNING).update(cancel_requested=True):
            cache.set(flag_key(job.pk), True, timeout=FLAG_TTL_S)  # what the checkpoints read
            return "requested"
        if not IngestJob.objects.filter(pk=job.pk, status__in=(*waiting, IngestJob.Status.RUNNING)).exists():
            break  # finished (or gone): nothing to cancel
    return ""


def withdraw_cancel(job: IngestJob) -> None:
    """Forget a cancel the job's last run never acknowledged: asked during a step without a
    checkpoint that then failed, it stood for FLAG_TTL_S and stopped the relaunched run at its
    first checkpoint."""
    cache.delete(flag_key(job.pk))
    IngestJob.objects.filter(pk=job.pk).update(cancel_requested=False)


def cancelled_message() -> Text:
    return Text(gettext_noop("Ingestion annulée à la demande d'un administrateur. « Relancer » la reprend là où elle s'était arrêtée."))


def acknowledge(job: IngestJob, reporter) -> None:
    """In the worker: the job stops as cancelled (its status and final event together)."""
    with transaction.atomic():
        ended = job.transition(
            IngestJob.Status.CANCELLED, allowed_from=(IngestJob.Status.RUNNING,), finished_at=timezone.now(), cancel_requested=False
        )
        if ended:
            reporter.emit("error", {**message_data(cancelled_message()), "cancelled": True})
    cache.delete(flag_key(job.pk))


def budget_s(pages: int) -> float:
    return max(settings.INGEST_MIN_BUDGET_S, settings.INGEST_SECONDS_PER_PAGE * max(pages, 1))


class Checkpoint:
    """Called between pages and batches: raises JobCancelled or JobOverBudget."""

    def __init__(self, job: IngestJob, pages: int):
        self.job_id = job.pk
        self.pages = pages
        self.budget = budget_s(pages)
        self.started = time.monotonic()
        self._last_check = 0.0

    def __call__(self, force: bool = False) -> None:
        """`force`: read the cancel flag even if it was read less than CHECK_INTERVAL_S ago."""
        now = time.monotonic()
        if now - self.started > self.budget:
            raise JobOverBudget(Text(gettext_noop(
                "L'ingestion a dépassé son temps maximal (%(budget)d s pour %(pages)d pages, INGEST_SECONDS_PER_PAGE). "
                "Relancez-la : elle reprend là où elle s'était arrêtée ; si cela se répète, vérifiez le PDF ou augmentez ce réglage."
            ), {"budget": self.budget, "pages": self.pages}))
        if force or now - self._last_check >= CHECK_INTERVAL_S:
            self._last_check = now
            if cache.get(flag_key(self.job_id)):
                raise JobCancelled()
