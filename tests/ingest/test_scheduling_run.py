"""A scheduled ingestion runs when its schedule fires, and at once if its time passed."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.models import Schedule
from django_q.scheduler import scheduler
from django_q.signals import post_spawn

from games.models import Chunk
from ingest import services
from ingest.models import IngestJob
from ingest.quota_pause import pending_schedule
from ingest.scheduling import run_scheduled_job, schedule_ingest
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def scheduled_job(tmp_path, when) -> IngestJob:
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    return schedule_ingest(job, when)


def test_nothing_runs_before_the_scheduled_time(tmp_path):
    job = scheduled_job(tmp_path, timezone.now() + timedelta(hours=1))

    scheduler()

    job.refresh_from_db()
    assert job.status == IngestJob.Status.SCHEDULED
    assert job.started_at is None


def test_the_schedule_firing_runs_the_ingestion_to_the_end(tmp_path):
    job = scheduled_job(tmp_path, timezone.now() + timedelta(hours=1))
    Schedule.objects.filter(name=f"ingest-{job.pk}").update(next_run=timezone.now() - timedelta(seconds=1))

    scheduler()

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert Chunk.objects.filter(collection="rules_heat").count() == job.stats["chunks"] > 0
    assert pending_schedule(job) is None
    assert job.events.filter(event="resumed").exists()


def test_a_time_that_passed_while_oracle_was_down_starts_when_a_worker_starts(tmp_path):
    job = scheduled_job(tmp_path, timezone.now() + timedelta(minutes=5))
    IngestJob.objects.filter(pk=job.pk).update(scheduled_at=timezone.now() - timedelta(hours=2))
    Schedule.objects.all().delete()  # and the schedule was lost on the way

    post_spawn.send(sender="django_q", proc_name="Process-1")

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error


def test_a_schedule_firing_for_a_cancelled_job_does_nothing(tmp_path):
    job = scheduled_job(tmp_path, timezone.now() + timedelta(hours=1))
    job.transition(IngestJob.Status.CANCELLED)

    run_scheduled_job(str(job.pk))

    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED
    assert not Chunk.objects.filter(collection="rules_heat").exists()


def test_scheduling_through_the_api_stores_the_job_without_running_it(tmp_path, client, alice):
    client.force_login(alice)
    when = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    with open(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), "rb") as pdf:
        response = client.post(
            "/api/games/ingest",
            {"pdf": pdf, "new_game_name": "Heat", "scheduled_start_at": when.isoformat()},
        )

    assert response.status_code == 202, response.content
    job = IngestJob.objects.get(pk=response.json()["job_id"])
    assert (job.status, job.pause_reason, job.scheduled_at) == ("scheduled", "user", when)
    assert pending_schedule(job).next_run == when
    assert not Chunk.objects.exists()


def test_the_api_refuses_a_start_more_than_seven_days_ahead(tmp_path, client, alice):
    client.force_login(alice)
    when = timezone.now() + timedelta(days=8)
    with open(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), "rb") as pdf:
        response = client.post(
            "/api/games/ingest",
            {"pdf": pdf, "new_game_name": "Heat", "scheduled_start_at": when.isoformat()},
        )

    assert response.status_code == 422
    assert "7 jours" in response.json()["detail"]
    assert not IngestJob.objects.exists()
