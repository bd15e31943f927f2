"""A later start asked without its time is refused, never started at once (the wizard's
« Planifier le démarrage » ticked, the date left empty); a time without a zone is the site's
(docs/scheduling.md)."""

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from ingest.models import IngestJob
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def upload(client, tmp_path, **fields):
    with open(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), "rb") as pdf:
        return client.post("/api/games/ingest", {"pdf": pdf, "new_game_name": "Heat", **fields})


def test_a_later_start_without_its_time_is_refused_and_nothing_is_written(tmp_path, client, alice):
    client.force_login(alice)

    response = upload(client, tmp_path, start_later="true")

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "scheduled_start_at"
    assert not IngestJob.objects.exists()


def test_a_later_start_with_its_time_is_scheduled(tmp_path, client, alice):
    client.force_login(alice)
    when = (timezone.now() + timedelta(days=1)).replace(microsecond=0)

    response = upload(client, tmp_path, start_later="true", scheduled_start_at=when.isoformat())

    assert response.status_code == 202, response.content
    assert IngestJob.objects.get().scheduled_at == when


def test_a_time_without_a_zone_is_the_sites(tmp_path, client, alice, settings):
    settings.TIME_ZONE = "Europe/Paris"
    client.force_login(alice)
    day = (timezone.now() + timedelta(days=2)).date()

    response = upload(client, tmp_path, start_later="true", scheduled_start_at=f"{day:%Y-%m-%d}T21:30")

    assert response.status_code == 202, response.content
    start = IngestJob.objects.get().scheduled_at.astimezone(ZoneInfo("Europe/Paris"))
    assert (start.date(), start.hour, start.minute) == (day, 21, 30)
