"""Ingestions started later: validation, the stored schedule, and re-arming after a restart."""

from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.utils import timezone
from django_q.models import Schedule
from django_q.signals import post_spawn

from ingest.models import IngestJob
from ingest.quota_pause import pending_schedule
from ingest.scheduling import (
    InvalidStartTime,
    restore_scheduled,
    schedule_ingest,
    validate_start_at,
)
from tests.factories import IngestJobFactory

pytestmark = pytest.mark.django_db


def in_hours(hours: float) -> datetime:
    return timezone.now() + timedelta(hours=hours)


@pytest.mark.parametrize(
    "when, message",
    [
        (lambda: timezone.now() - timedelta(minutes=1), "futur"),
        (lambda: timezone.now() + timedelta(days=7, minutes=1), "7 jours"),
        (lambda: timezone.localtime().replace(tzinfo=None) - timedelta(minutes=1), "futur"),  # the site's time
    ],
    ids=["past", "more-than-7-days", "past-without-a-zone"],
)
def test_start_times_outside_the_next_seven_days_are_refused(when, message):
    with pytest.raises(InvalidStartTime, match=message):
        validate_start_at(when())


def test_a_start_time_within_seven_days_is_accepted():
    when = timezone.now() + timedelta(days=6, hours=23)
    assert validate_start_at(when) == when


def test_a_start_time_without_a_zone_is_the_sites(settings):
    settings.TIME_ZONE = "America/New_York"
    site = timezone.localtime(timezone.now() + timedelta(hours=5)).replace(microsecond=0)
    assert validate_start_at(site.replace(tzinfo=None)) == site


def test_scheduling_puts_the_job_on_hold_with_a_stored_one_off_schedule():
    job = IngestJobFactory()
    when = in_hours(5)

    schedule_ingest(job, when)

    job.refresh_from_db()
    assert job.status == IngestJob.Status.SCHEDULED
    assert job.pause_reason == IngestJob.PauseReason.USER
    assert job.scheduled_at == when
    schedule = pending_schedule(job)
    assert schedule.func == "ingest.scheduling.run_scheduled_job"
    assert schedule.schedule_type == Schedule.ONCE
    assert schedule.next_run == when
    assert job.events.get(event="scheduled").data == {"reason": "user", "scheduledAt": when.isoformat()}


def test_rescheduling_moves_the_single_schedule():
    job = IngestJobFactory()
    schedule_ingest(job, in_hours(5))
    later = in_hours(30)

    schedule_ingest(job, later)

    assert Schedule.objects.filter(name=f"ingest-{job.pk}").count() == 1
    assert pending_schedule(job).next_run == later


def test_a_running_job_cannot_be_scheduled():
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)

    with pytest.raises(ValueError, match="running"):
        schedule_ingest(job, in_hours(1))
    assert pending_schedule(job) is None


def test_a_lost_schedule_is_rearmed_at_its_time_when_a_worker_starts():
    job = IngestJobFactory()
    when = in_hours(2)
    schedule_ingest(job, when)
    Schedule.objects.all().delete()

    post_spawn.send(sender="django_q", proc_name="Process-1")

    assert pending_schedule(job).next_run == when


def test_a_start_time_that_passed_while_oracle_was_down_is_due_at_once():
    job = IngestJobFactory(
        status=IngestJob.Status.SCHEDULED,
        pause_reason=IngestJob.PauseReason.USER,
        scheduled_at=datetime(2026, 1, 1, 9, tzinfo=dt_timezone.utc),
    )
    now = timezone.now()

    assert restore_scheduled(now=now) == 1

    assert pending_schedule(job).next_run == now
    assert restore_scheduled() == 0  # idempotent: one schedule per job


def test_finished_or_queued_jobs_get_no_schedule():
    IngestJobFactory(status=IngestJob.Status.DONE)
    IngestJobFactory(status=IngestJob.Status.QUEUED)

    assert restore_scheduled() == 0
    assert not Schedule.objects.filter(func="ingest.scheduling.run_scheduled_job").exists()
