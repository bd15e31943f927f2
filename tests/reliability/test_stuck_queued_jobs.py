"""Issue 19, defect 6: a job queued when its cluster died stayed `queued` for 3 h 10 min —
django-q2's ORM broker had claimed its task (lock = now + retry) and only the claim's expiry
would free it; the sweep looked at running jobs only, « Relancer » said « 0 ingestions
relancées », health said "0 queued". The claim of a cluster that is gone is released by the
sweep, « Relancer » works on it, health shows it."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import OrmQ

from ingest import services
from ingest.models import IngestJob
from oracle_site.recovery import sweep
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


@pytest.fixture
def orm_broker(monkeypatch):
    """Tasks go to the real ORM broker instead of running inline (the tests' sync mode)."""
    monkeypatch.setattr(Conf, "SYNC", False)
    return get_broker()


def claimed_then_orphaned(tmp_path, broker) -> IngestJob:
    """A queued job whose task a cluster pulled (django-q2's own dequeue) before it died."""
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), new_game_name="Heat")
    services.enqueue(job)
    assert len(broker.dequeue()) == 1  # the claim: lock = now + retry
    IngestJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(minutes=2))
    assert broker.dequeue() is None  # nobody else may take it until the claim expires (3 h 10 min)
    return job


def test_the_sweep_releases_a_task_claimed_by_a_cluster_that_is_gone(tmp_path, orm_broker):
    job = claimed_then_orphaned(tmp_path, orm_broker)

    result = sweep()

    assert result["stuck_released"] == 1
    pulled = orm_broker.dequeue()
    assert pulled and len(pulled) == 1, "the next poll of a cluster takes the job"
    job.refresh_from_db()
    assert job.status == IngestJob.Status.QUEUED


def test_a_queued_job_without_a_task_is_enqueued_again(tmp_path, orm_broker):
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), new_game_name="Heat")
    IngestJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(minutes=2))

    assert sweep()["stuck_released"] == 1
    assert OrmQ.objects.count() == 1


def test_a_freshly_queued_or_unclaimed_job_is_left_alone(tmp_path, orm_broker):
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), new_game_name="Heat")
    services.enqueue(job)
    IngestJob.objects.filter(pk=job.pk).update(updated_at=timezone.now() - timedelta(minutes=2))

    assert sweep()["stuck_released"] == 0  # waiting for a cluster, not claimed
    assert OrmQ.objects.count() == 1


def test_admin_retry_releases_a_stuck_job_and_health_shows_it(tmp_path, orm_broker, alice):
    job = claimed_then_orphaned(tmp_path, orm_broker)
    admin = Client()
    admin.force_login(alice)

    queue = admin.get("/api/health").json()["components"]["job_queue"]
    assert "1 job(s) waiting" in queue["detail"]

    response = admin.post("/admin/ingest/ingestjob/", {"action": "retry_jobs", "_selected_action": [str(job.pk)]}, follow=True)

    assert "1 ingestion relancée" in response.content.decode()
    assert orm_broker.dequeue()
