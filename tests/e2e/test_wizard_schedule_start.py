"""« Planifier le démarrage » in the upload wizard, from a browser in another time zone than the
site's: a ticked box needs its date, and the time typed is the site's (docs/ui.md)."""

import re
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from ingest.models import IngestJob
from tests.e2e.booklets import pdf_of_pages
from tests.e2e.conftest import open_signed_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
PAGES = {1: "Les Voltigeurs\n" + "Chaque joueur commence avec trois jetons Vent et une carte Cap. " * 5}


def test_a_scheduled_start_needs_its_date_and_is_read_in_the_site_time_zone(browser, live_daphne, alice, tmp_path):
    pdf = tmp_path / "voltigeurs.pdf"
    pdf.write_bytes(pdf_of_pages(PAGES))
    page = open_signed_in(browser, live_daphne, alice, timezone_id="America/New_York")  # 5 or 6 hours behind Paris
    page.goto("/ingestion/nouvelle/")
    page.set_input_files("input[name=pdf]", str(pdf))
    page.fill("input[name=new_game_name]", "Les Voltigeurs")
    page.check("#schedule-toggle")

    page.click("#ingest-submit")  # no date: the form says so and sends nothing
    page.wait_for_timeout(1000)
    assert page.url.endswith("/ingestion/nouvelle/")
    assert not IngestJob.objects.exists()
    assert page.eval_on_selector("#scheduled-start", "input => input.validity.valueMissing")

    day = (timezone.localtime() + timedelta(days=2)).date()
    page.fill("#scheduled-start", f"{day:%Y-%m-%d}T21:30")
    page.click("#ingest-submit")
    page.wait_for_url(re.compile(r"/ingestion/[0-9a-f-]{36}/$"), timeout=30_000)

    job = IngestJob.objects.get()
    assert job.status == IngestJob.Status.SCHEDULED
    assert job.scheduled_at == timezone.make_aware(datetime.combine(day, datetime.min.time()).replace(hour=21, minute=30))
    page.wait_for_function("document.getElementById('scheduled-slot')?.textContent.includes('21:30')", timeout=10_000)
