"""With Redis as the django-q2 broker a pulled task is not kept: a cluster killed with it (or a
Redis restarted without persistence) loses it, and the broker's list cannot be searched. Such
a job stayed `queued` for ever and « Relancer » refused it (409). A job queued for longer
than INGEST_QUEUED_LOST_AFTER_S is now enqueued again — by the sweep once no ingestion runs,
by « Relancer » at once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from ingest import recovery, services
from ingest.models import IngestJob
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_broker(settings, monkeypatch):
    """The settings of a Redis-brokered site with a live cluster; the tasks still run inline
    (the tests' sync mode), which is what a live cluster would do with them."""
    settings.REDIS_URL = "redis://127.0.0.1:6379/15"
    settings.INGEST_QUEUED_LOST_AFTER_S = 600
    monkeypatch.setattr(recovery, "_oldest_live_cluster_birth", lambda: timezone.now() - timedelta(hours=1))
    return settings


def queued_since(tmp_path, minutes: float, name="Heat") -> IngestJob:
    """A job queued `minutes` ago whose task went with the cluster that had pulled it."""
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / f"{name}.pdf", LOREM_RULES), new_game_name=name)
    IngestJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(minutes=minutes))
    return job


def test_the_sweep_enqueues_again_a_job_queued_past_the_limit_and_it_runs(tmp_path, redis_broker):
    job = queued_since(tmp_path, minutes=11)

    assert recovery.sweep()["stuck_released"] == 1

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error


def test_the_sweep_waits_while_a_job_runs_or_before_the_limit(tmp_path, redis_broker):
    """A job may wait its turn behind a long ingestion: that is no lost task."""
    behind = queued_since(tmp_path, minutes=30)
    young = queued_since(tmp_path, minutes=5, name="Ark")
    running = IngestJob.objects.create(game=young.game, status=IngestJob.Status.RUNNING)

    assert recovery.sweep()["stuck_released"] == 0
    running.transition(IngestJob.Status.DONE)
    assert recovery.sweep()["stuck_released"] == 1  # once nothing runs, only the one past the limit

    assert IngestJob.objects.get(pk=behind.pk).status == IngestJob.Status.DONE
    assert IngestJob.objects.get(pk=young.pk).status == IngestJob.Status.QUEUED


def test_relancer_accepts_a_job_queued_past_the_limit(tmp_path, redis_broker, client, alice):
    job = queued_since(tmp_path, minutes=11)
    IngestJob.objects.create(game=job.game, status=IngestJob.Status.RUNNING)  # the admin need not wait for it
    client.force_login(alice)

    response = client.post(f"/api/ingest/{job.pk}/retry")

    assert response.status_code == 202, response.content
    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error


def test_relancer_explains_why_a_recently_queued_job_is_left_to_wait(tmp_path, redis_broker, client, alice):
    job = queued_since(tmp_path, minutes=2)
    client.force_login(alice)

    response = client.post(f"/api/ingest/{job.pk}/retry")

    assert response.status_code == 409
    assert "attend son tour dans la file depuis moins de 10 minutes" in response.json()["detail"]
    assert IngestJob.objects.get(pk=job.pk).status == IngestJob.Status.QUEUED
