"""The job page as the server renders it, before its script replays a single event: a failed
or cancelled job's rows, a paused job's status, and start times that are not today with their
day, in the page's language (also in the jobs list)."""

import html
import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from ingest.models import IngestJob
from tests.factories import GameFactory, IngestJobFactory


def text(page: str) -> str:
    """What the admin reads: the page's text without its tags and scripts."""
    page = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def rows(page: str) -> list[tuple[str, str, str]]:
    """(act, state, what its row says) of each act listed."""
    found = re.findall(r'<li class="act" data-act="(\w+)" data-state="(\w+)"[^>]*>(.*?)</li>', page, re.S)
    return [(act, state, text(row).strip()) for act, state, row in found]


@pytest.mark.parametrize("status", [IngestJob.Status.ERROR, IngestJob.Status.CANCELLED])
def test_a_stopped_job_marks_the_act_it_stopped_in_and_promises_no_act_after_it(client, alice, status):
    job = IngestJobFactory(status=status, error="boom", progress={
        "read": {"state": "done", "done": 2, "total": 2, "elapsed": 0.3},
        "chunk": {"state": "progress", "done": 1, "total": 4, "elapsed": 0.1},
    })
    client.force_login(alice)
    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()

    assert rows(page) == [("read", "done", "✓ Lecture 2/2"), ("chunk", "stopped", "✕ Découpage 1/4 étape interrompue")]
    assert "à venir" not in text(page)


@pytest.fixture
def in_paris(settings):
    settings.TIME_ZONE = "Europe/Paris"


def saturday_1_june_21h30():
    return timezone.make_aware(timezone.datetime(2030, 6, 1, 21, 30))


def test_start_times_not_today_say_their_day_in_the_page_language(client, alice, in_paris):
    resting = IngestJobFactory(game=GameFactory(name="Ark"), status=IngestJob.Status.SCHEDULED, pause_reason="quota",
                               scheduled_at=saturday_1_june_21h30())
    planned = IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.SCHEDULED, pause_reason="user",
                               scheduled_at=saturday_1_june_21h30() + timedelta(days=2))
    client.force_login(alice)

    def page(name, *args, language="fr"):
        return text(client.get(reverse(name, args=args), HTTP_ACCEPT_LANGUAGE=language).content.decode())

    assert "L'oracle se repose. Reprise prévue à 21:30 (samedi 1 juin)." in page("oracle-ingest-job", resting.pk)
    assert "Ingestion prévue à 21:30 (lundi 3 juin)" in page("oracle-ingest-job", planned.pk)
    jobs = page("oracle-ingest-jobs")
    assert "Reprise prévue à 21:30 (samedi 1 juin)." in jobs and "Ingestion prévue à 21:30 (lundi 3 juin)" in jobs
    assert "The oracle is resting. Resuming at 21:30 (Saturday 1 June)." in page("oracle-ingest-job", resting.pk, language="en")
    assert "Ingestion scheduled at 21:30 (Monday 3 June)" in page("oracle-ingest-jobs", language="en")


def test_a_start_time_today_is_the_time_alone(client, alice, in_paris):
    tonight = timezone.localtime().replace(hour=23, minute=59)
    job = IngestJobFactory(status=IngestJob.Status.SCHEDULED, pause_reason="quota", scheduled_at=tonight)
    client.force_login(alice)

    page = text(client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode())

    assert "L'oracle se repose. Reprise prévue à 23:59." in page


def test_a_job_resting_on_a_quota_pause_is_scheduled_with_no_time_left_said(client, alice, in_paris):
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)
    job.emit("act", {"act": "read", "state": "progress", "done": 1, "total": 2})
    last = job.emit("quota_pause", {"resetAt": saturday_1_june_21h30().isoformat(), "retryAt": saturday_1_june_21h30().isoformat()})
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJob.Status.SCHEDULED, pause_reason="quota", scheduled_at=saturday_1_june_21h30())
    client.force_login(alice)

    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()

    assert re.search(r'<strong id="job-status-label">Planifiée</strong>', page)
    assert re.search(r'<p id="remaining"[^>]*></p>', page)  # nothing counts down while it rests
    assert f'data-last-event="{last.pk}"' in page  # the replay up to it keeps that status (the script)
    strings = json.loads(re.search(r'id="ingest-strings">(.*?)</script>', page).group(1))
    assert strings["scheduled"] == "Planifiée"
