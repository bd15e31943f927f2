"""/api/ingest: jobs listed with filters, cancelled while scheduled, retried after a failure."""

import pytest
from django_q.models import Schedule

from ingest.models import IngestJob
from ingest.quota_pause import schedule_name
from ingest.scheduling import schedule_ingest
from tests.factories import GameFactory, IngestJobFactory

pytestmark = pytest.mark.django_db


def test_jobs_are_listed_newest_first_and_filtered_by_game_and_status(admin):
    heat, azul = GameFactory(name="Heat"), GameFactory(name="Azul")
    failed = IngestJobFactory(game=heat, status=IngestJob.Status.ERROR)
    done = IngestJobFactory(game=heat, status=IngestJob.Status.DONE)
    IngestJobFactory(game=azul, status=IngestJob.Status.DONE)

    everything = admin.get("/api/ingest").json()
    assert everything["count"] == 3
    of_heat = admin.get("/api/ingest", {"game_id": str(heat.pk)}).json()
    assert [j["id"] for j in of_heat["items"]] == [str(done.pk), str(failed.pk)]
    failures = admin.get("/api/ingest", {"status": "error"}).json()
    assert [j["id"] for j in failures["items"]] == [str(failed.pk)]
    assert admin.get("/api/ingest", {"status": "exploded"}).json()["errors"][0]["field"] == "status"


def test_a_scheduled_job_is_cancelled_and_loses_its_schedule(admin, heat):
    from datetime import timedelta

    from django.utils import timezone

    job = IngestJob.objects.create(game=heat, pdf_path=heat.pdf.name)
    schedule_ingest(job, timezone.now() + timedelta(hours=2))

    response = admin.post(f"/api/ingest/{job.pk}/cancel")

    assert response.status_code == 202 and response.json()["outcome"] == "cancelled"
    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED and not Schedule.objects.filter(name=schedule_name(job)).exists()
    assert heat.booklets()  # the booklet and its rules stay


def test_a_finished_job_cannot_be_cancelled(admin):
    job = IngestJobFactory(status=IngestJob.Status.DONE)
    response = admin.post(f"/api/ingest/{job.pk}/cancel")
    assert response.status_code == 409 and response.json()["errors"] == []


def test_a_failed_job_is_retried_to_the_end(admin, heat):
    job = IngestJob.objects.create(game=heat, pdf_path=heat.pdf.name, status=IngestJob.Status.ERROR, error="boom")

    response = admin.post(f"/api/ingest/{job.pk}/retry")

    assert response.status_code == 202
    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE and job.error == ""


def test_an_old_failed_job_is_not_relaunched_beside_a_newer_upload_of_its_booklet(admin, heat):
    """The two would read the booklet at once and replace each other's rules."""
    old = IngestJob.objects.create(game=heat, pdf_path=heat.pdf.name, status=IngestJob.Status.ERROR, error="boom")
    newer = IngestJob.objects.create(game=heat, pdf_path=heat.pdf.name, status=IngestJob.Status.QUEUED)

    response = admin.post(f"/api/ingest/{old.pk}/retry")

    assert response.status_code == 409
    assert "Une autre ingestion de ce livret" in response.json()["detail"]
    old.refresh_from_db(), newer.refresh_from_db()
    assert (old.status, newer.status) == (IngestJob.Status.ERROR, IngestJob.Status.QUEUED)

def test_a_done_job_is_not_retried(admin):
    job = IngestJobFactory(status=IngestJob.Status.DONE)
    assert admin.post(f"/api/ingest/{job.pk}/retry").status_code == 409


def test_an_unknown_job_is_404_in_the_one_error_shape(admin):
    response = admin.get("/api/ingest/7b0e6c55-6a3f-4b8e-9d42-0c7d4c1f0a11")
    assert response.status_code == 404 and response.json() == {"detail": "Introuvable.", "errors": []}
