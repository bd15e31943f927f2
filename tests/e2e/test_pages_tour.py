"""The main pages as a visitor, a player and an admin see them (screenshots for people to
look at), the language switch, and a user-scheduled ingest cancelled from its panel."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from ingest.models import IngestJob
from ingest.scheduling import schedule_ingest
from tests.e2e.conftest import open_signed_in, screenshot
from tests.factories import GameFactory, IngestJobFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_visitor_logs_in_from_the_login_page(browser, live_daphne, course_folle, bob):
    context = browser.new_context(base_url=live_daphne, locale="fr-FR")
    page = context.new_page()
    page.goto(f"/jeux/{course_folle[0].slug}/")
    assert "/login/" in page.url
    screenshot(page, "login")
    page.fill("input[name=username]", "bob")
    page.fill("input[name=password]", "correct horse battery staple")
    page.click("form.stacked button[type=submit]")
    page.wait_for_url(re.compile(rf"/jeux/{course_folle[0].slug}/$"))
    assert page.is_visible("#question")


def test_home_and_language_switch(browser, live_daphne, course_folle, bob):
    page = open_signed_in(browser, live_daphne, bob)
    page.goto("/")
    assert page.inner_text("h1") == "L'Oracle des règles"
    screenshot(page, "home")
    page.click("button.lang[value=en]")
    page.wait_for_selector("html[lang=en]")
    assert page.inner_text("h1") == "The rules oracle"
    page.locator("#game-course-folle button[type=submit]").click()
    assert page.inner_text("#ask-button") == "Ask the Oracle"


def test_admin_sees_the_rest_panel_and_cancels_a_scheduled_ingest(browser, live_daphne, alice):
    rested = IngestJobFactory(game=GameFactory(name="Ark Nova"), status=IngestJob.Status.SCHEDULED,
                              pause_reason="quota", scheduled_at=timezone.now() + timedelta(hours=2))
    planned_game = GameFactory(name="Heat")
    planned = IngestJobFactory(game=planned_game, status=IngestJob.Status.QUEUED)
    schedule_ingest(planned, timezone.now() + timedelta(days=1))
    page = open_signed_in(browser, live_daphne, alice)

    page.goto("/ingestion/")
    assert page.locator(".reason-quota .resting").inner_text().startswith("L'oracle se repose. Reprise prévue à ")
    assert page.locator(".reason-quota.error-text, .reason-quota [role=alert]").count() == 0
    screenshot(page, "ingest-jobs")

    page.goto(f"/ingestion/{planned.pk}/")
    page.locator(".reason-user .planned", has_text="Ingestion prévue à").wait_for()
    screenshot(page, "ingest-scheduled")
    page.click(".cancel-scheduled")
    page.locator("#job-cancelled").wait_for(state="visible")
    assert not IngestJob.objects.filter(pk=planned.pk, status=IngestJob.Status.SCHEDULED).exists()
    assert IngestJob.objects.filter(pk=rested.pk, status=IngestJob.Status.SCHEDULED).exists()
