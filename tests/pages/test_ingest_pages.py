import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from ingest.models import IngestJob
from tests.factories import GameFactory, IngestJobFactory


def test_ingest_pages_are_for_admins_only(client, bob):
    job = IngestJobFactory()
    client.force_login(bob)
    for url in (reverse("oracle-ingest-new"), reverse("oracle-ingest-jobs"), reverse("oracle-ingest-job", args=[job.pk])):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("oracle-login"))


def test_wizard_offers_games_kinds_and_a_start_date_at_most_seven_days_ahead(client, alice):
    game = GameFactory(name="Heat")
    client.force_login(alice)
    page = client.get(reverse("oracle-ingest-new"), {"game": game.slug}).content.decode()
    assert f'<option value="{game.pk}" selected>Heat</option>' in page
    for kind in ("base", "extension", "advanced_rules", "faq"):
        assert f'<option value="{kind}"' in page
    max_start = (timezone.localtime() + timedelta(days=7)).strftime("%Y-%m-%d")
    assert f'max="{max_start}T' in page
    assert reverse("admin:games_game_changelist") in page


@pytest.fixture
def at_21h30(settings):
    settings.TIME_ZONE = "Europe/Paris"
    return timezone.make_aware(timezone.datetime(2030, 6, 1, 21, 30))


def test_user_scheduled_job_shows_its_start_time_and_a_cancel_button(client, alice, at_21h30):
    job = IngestJobFactory(status=IngestJob.Status.SCHEDULED, pause_reason="user", scheduled_at=at_21h30)
    client.force_login(alice)
    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()
    assert "Ingestion prévue à 21:30" in page
    assert f'data-cancel-url="/api/ingest/{job.pk}/scheduled"' in page


def test_quota_pause_is_shown_as_a_rest_never_as_an_error(client, alice, at_21h30):
    job = IngestJobFactory(status=IngestJob.Status.SCHEDULED, pause_reason="quota", scheduled_at=at_21h30)
    client.force_login(alice)
    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()
    assert re.search(r"L'oracle se repose\. Reprise prévue à 21:30( \(\w+ \d+ \w+\))?\.", page)  # the day: unless today
    assert "cancel-scheduled" not in page
    assert 'id="job-error" class="error-text" role="alert" hidden' in page


def test_jobs_panel_lists_scheduled_then_recent_jobs(client, alice, at_21h30):
    IngestJobFactory(game=GameFactory(name="Ark Nova"), status=IngestJob.Status.SCHEDULED, pause_reason="quota",
                     scheduled_at=at_21h30)
    IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.ERROR, error="PDF chiffré")
    client.force_login(alice)
    page = client.get(reverse("oracle-ingest-jobs")).content.decode()
    assert page.index("Ark Nova") < page.index("Récentes") < page.index("Heat")
    assert re.search(r"L'oracle se repose\. Reprise prévue à 21:30( \(\w+ \d+ \w+\))?\.", page)  # the day: unless today
    assert reverse("admin:ingest_ingestjob_changelist") in page


def test_jobs_panel_alone_is_sent_to_its_htmx_refresh(client, alice):
    IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.DONE)
    client.force_login(alice)
    fragment = client.get(reverse("oracle-ingest-jobs"), headers={"HX-Request": "true"}).content.decode()
    assert fragment.lstrip().startswith('<div id="jobs-panel"') and "Heat" in fragment
    assert "<html" not in fragment
