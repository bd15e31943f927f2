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
from ingest.recovery import sweep
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


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_job_pulled_by_a_killed_cluster_runs_soon_after_the_worker_returns(settings, tmp_path, alice):
    """Real processes: the cluster is busy with one job and has already pulled the next one
    when it is killed; after a restart both end, the second within minutes, not 3 h."""
    import httpx

    from tests.ingest.pdfs import scanned_pdf

    from .processes import server_env, start_daphne, start_qcluster, wait_for
    from .test_faults_processes import staff_session

    env = server_env(settings, tmp_path / "var", RECOVERY_SWEEP_INTERVAL_S=5, INGEST_HEARTBEAT_S=1, INGEST_STALE_AFTER_S=4, OCR_CONCURRENCY=1)
    scan = scanned_pdf(tmp_path / "scan.pdf", [[f"Page {n} du livret", "mot clef"] for n in range(5)], tmp_path)
    web, base_url = start_daphne(env, tmp_path / "daphne.log")
    worker = start_qcluster(env, tmp_path / "qcluster-1.log")
    try:
        ids = []
        for name, pdf in (("Scan", scan), ("Heat", rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES))):
            with open(pdf, "rb") as handle:
                response = httpx.post(f"{base_url}/api/games/ingest", headers=staff_session(alice),
                                      files={"pdf": (pdf.name, handle, "application/pdf")}, data={"new_game_name": name}, timeout=30)
            assert response.status_code == 202, response.text
            ids.append(response.json()["job_id"])
        wait_for(lambda: OrmQ.objects.filter(lock__gt=timezone.now() + timedelta(hours=1)).count() == 2, timeout=120,
                 what="the cluster to pull both tasks")
        assert IngestJob.objects.get(pk=ids[1]).status == IngestJob.Status.QUEUED

        worker.kill()
        worker = start_qcluster(env, tmp_path / "qcluster-2.log")
        returned = timezone.now()
        second = wait_for(lambda: IngestJob.objects.filter(pk=ids[1], status__in=["done", "error"]).first(), timeout=300,
                          what="the second job to end")
        ended_after = (timezone.now() - returned).total_seconds()
    finally:
        worker.stop()
        web.stop()
    print(f"\njob pulled by a killed cluster: done {ended_after:.0f} s after the worker returned")
    assert second.status == IngestJob.Status.DONE, second.error
