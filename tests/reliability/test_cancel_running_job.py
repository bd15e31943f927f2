"""Issue 19, defect 3: a running job could not be cancelled, and nothing bounded its time.
Cancel (API, admin, the job page) stops the worker between two pages, keeps the caches for
« Relancer »; a job over INGEST_SECONDS_PER_PAGE × pages ends with a clear error."""

import threading
import time

import pytest
from django.test import Client

from ingest import services
from ingest.coordinator import run_job
from ingest.models import IngestJob
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf, scanned_pdf

pytestmark = pytest.mark.django_db(transaction=True)
PAGES = [[f"Page {n} du livret", f"Chaque joueur pioche {n} cartes."] for n in range(1, 7)]


def staff_client(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def test_a_running_job_cancelled_through_the_api_stops_between_pages_and_resumes_from_its_cache(tmp_path, settings, alice):
    settings.OCR_CONCURRENCY = 1  # pages in order
    job = services.create_ingest(pdf_path_or_file=scanned_pdf(tmp_path / "scan.pdf", PAGES, tmp_path), new_game_name="Heat")
    admin = staff_client(alice)
    asked = {}

    def cancel_after_two_ocr_pages(event, data):  # the admin clicks while page 3 is read
        if event == "act" and data["act"] == "ocr" and data["done"] >= 2 and not asked:
            asked["at"] = time.monotonic()
            asked["response"] = admin.post(f"/api/ingest/{job.pk}/cancel")

    worker = threading.Thread(target=run_job, args=(str(job.pk), cancel_after_two_ocr_pages))
    worker.start()
    worker.join(timeout=300)
    stopped_after = time.monotonic() - asked["at"]

    job.refresh_from_db()
    print(f"\ncancel → worker stopped after {stopped_after:.1f} s")
    assert asked["response"].status_code == 202 and asked["response"].json()["outcome"] == "requested"
    assert job.status == IngestJob.Status.CANCELLED
    last = job.events.last()
    assert last.event == "error" and last.data["cancelled"] and "annulée" in last.data["message"]
    assert job.progress["ocr"]["done"] < len(PAGES), "stopped before the end of the OCR"

    assert services.retry(job)  # « Relancer »
    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert job.stats["ocr"]["from_cache"] >= 2, "the pages read before the cancel are not read again"


def test_a_queued_job_is_cancelled_at_once_and_a_finished_one_is_a_409(tmp_path, alice, monkeypatch):
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", False)  # stays queued
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), new_game_name="Heat")
    services.enqueue(job)
    admin = staff_client(alice)

    assert admin.post(f"/api/ingest/{job.pk}/cancel").json()["outcome"] == "cancelled"
    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED
    assert run_job(str(job.pk)).status == IngestJob.Status.CANCELLED  # its task, pulled later, does nothing
    assert admin.post(f"/api/ingest/{job.pk}/cancel").status_code == 409


def test_players_cannot_cancel(tmp_path, bob, monkeypatch):
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", False)
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), new_game_name="Heat")
    player = Client()
    player.force_login(bob)
    assert player.post(f"/api/ingest/{job.pk}/cancel").status_code == 403
    job.refresh_from_db()
    assert job.status == IngestJob.Status.QUEUED


def test_the_admin_action_cancels(tmp_path, alice, monkeypatch):
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", False)
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), new_game_name="Heat")
    response = staff_client(alice).post("/admin/ingest/ingestjob/", {"action": "cancel_jobs", "_selected_action": [str(job.pk)]}, follow=True)
    assert "1 ingestion annulée" in response.content.decode()
    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED


def test_a_job_over_its_time_budget_ends_with_a_clear_error(tmp_path, settings):
    settings.OCR_CONCURRENCY = 1
    settings.INGEST_SECONDS_PER_PAGE = 0.5
    settings.INGEST_MIN_BUDGET_S = 0
    job = services.create_ingest(pdf_path_or_file=scanned_pdf(tmp_path / "scan.pdf", PAGES, tmp_path), new_game_name="Heat")

    job = run_job(str(job.pk))

    assert job.status == IngestJob.Status.ERROR
    assert "temps maximal (3 s pour 6 pages" in job.error and "Relancez" in job.error


def test_the_job_page_offers_the_cancel_button_while_queued_or_running(tmp_path, alice, monkeypatch):
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", False)
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), new_game_name="Heat")
    page = staff_client(alice).get(f"/ingestion/{job.pk}/").content.decode()
    assert f'data-cancel-url="/api/ingest/{job.pk}/cancel"' in page
    assert 'id="stop-slot" >' in page or 'id="stop-slot">' in page.replace(" \n", "")  # shown, not hidden
