"""Issue 19, defect 3 in the browser: an admin stops a running ingestion from its page; the
worker stops between two pages and the page says so."""

import re

import pytest

from ingest.models import IngestJob
from tests.e2e.conftest import open_signed_in, screenshot
from tests.ingest.pdfs import scanned_pdf

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_admin_cancels_a_running_ingestion_from_its_page(browser, live_daphne, qcluster, alice, tmp_path):
    pdf = scanned_pdf(tmp_path / "scan.pdf", [[f"Page {n} du livret", "Chaque joueur pioche deux cartes."] for n in range(8)], tmp_path)
    page = open_signed_in(browser, live_daphne, alice)
    page.goto("/ingestion/nouvelle/")
    page.set_input_files("input[name=pdf]", str(pdf))
    page.fill("input[name=new_game_name]", "Scan")
    page.click("#ingest-submit")
    page.wait_for_url(re.compile(r"/ingestion/[0-9a-f-]{36}/$"))
    page.locator(".act[data-act=ocr]").wait_for(timeout=120_000)  # running: reading the scans

    page.click(".cancel-job")

    page.locator("#job-cancelled").wait_for(state="visible", timeout=60_000)
    screenshot(page, "ingest-cancelled")
    assert page.locator("#stop-slot").is_hidden()
    job = IngestJob.objects.get()
    assert job.status == IngestJob.Status.CANCELLED
    assert job.progress["ocr"]["done"] < 8
