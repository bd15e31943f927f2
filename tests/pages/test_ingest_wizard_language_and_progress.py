"""The wizard leaves the language to detection by default; the job page lists the acts still to
come with the pace of earlier jobs (for « environ N min restantes »), and corrects a booklet's
language in one click."""

import html
import json
import re

from django.urls import reverse

from games.models import Game
from ingest.models import IngestJob
from tests.factories import GameFactory, IngestJobFactory


def test_wizard_detects_the_language_unless_the_admin_chooses_one(client, alice):
    client.force_login(alice)
    page = client.get(reverse("oracle-ingest-new")).content.decode()
    select = re.search(r'<select name="language".*?</select>', page, re.S).group(0)
    assert '<option value="" selected>Détecter</option>' in select
    assert '<option value="fr">Français</option>' in select and '<option value="en">Anglais</option>' in select


def test_job_page_lists_every_act_to_come_and_the_pace_of_finished_jobs(client, alice):
    IngestJobFactory(status=IngestJob.Status.DONE, stats={"pages": 10, "chunks": 30},
                     progress={"embed": {"state": "done", "done": 30, "total": 30, "elapsed": 15.0}})
    job = IngestJobFactory(status=IngestJob.Status.QUEUED)
    client.force_login(alice)
    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()

    rows = re.findall(r'<li class="act" data-act="(\w+)" data-state="pending"( hidden)?>', page)
    assert [act for act, _ in rows] == ["read", "ocr", "chunk", "hierarchy", "context", "embed", "index"]
    assert dict(rows)["ocr"] == " hidden"  # shown only if OCR runs
    assert 'id="overall-progress"' in page and "Estimation du temps restant…" in page
    rates = json.loads(re.search(r'<script id="ingest-rates" type="application/json">(.*?)</script>', page).group(1))
    assert rates["seconds_per_unit"]["embed"] == 0.5 and rates["chunks_per_page"] == 3.0 and rates["jobs"] == 1
    strings = json.loads(re.search(r'id="ingest-strings">(.*?)</script>', page).group(1))
    assert strings["minutesLeft"] == "environ N min restantes"


def test_a_finished_job_opened_afresh_shows_the_acts_that_ran(client, alice):
    """Opened after its end (a reload), the page is right before its script replays a single
    event: every act that ran is done with its counts, and OCR, which did not run, is not listed."""
    ran = {act: {"state": "done", "done": 2, "total": 2, "elapsed": 0.1} for act in ("read", "chunk", "hierarchy", "context", "embed", "index")}
    job = IngestJobFactory(status=IngestJob.Status.DONE, progress=ran)
    client.force_login(alice)
    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()

    rows = re.findall(r'<li class="act" data-act="(\w+)" data-state="(\w+)"( hidden)?>.*?class="act-counts">([^<]*)<', page)
    assert [(act, state, hidden, counts) for act, state, hidden, counts in rows] == [
        (act, "done", "", "2/2") for act in ("read", "chunk", "hierarchy", "context", "embed", "index")
    ]
    ocr_job = IngestJobFactory(status=IngestJob.Status.DONE, progress={**ran, "ocr": {"state": "done", "done": 1, "total": 1}})
    page = client.get(reverse("oracle-ingest-job", args=[ocr_job.pk])).content.decode()
    assert '<li class="act" data-act="ocr" data-state="done">' in page  # OCR ran: listed, shown


def test_correct_language_button_sets_the_detected_language(client, alice):
    game = GameFactory(language="fr")
    job = IngestJobFactory(game=game, status=IngestJob.Status.DONE)
    job.emit("language", {"detected": "en", "declared": "fr", "applied": False, "mismatch": True})
    client.force_login(alice)
    url = reverse("oracle-ingest-correct-language", args=[job.pk])

    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()
    assert f'action="{url}"' in page and 'data-booklet-language="fr"' in page
    response = client.post(url, follow=True)

    assert Game.objects.get(pk=game.pk).language == "en"
    assert response.redirect_chain[-1][0] == reverse("oracle-ingest-job", args=[job.pk])
    assert "Langue du livret corrigée : anglais." in response.content.decode()
    assert 'data-booklet-language="en"' in response.content.decode()


def test_correct_language_is_a_post_by_an_admin(client, alice, bob):
    job = IngestJobFactory()
    job.emit("language", {"detected": "en", "mismatch": True})
    url = reverse("oracle-ingest-correct-language", args=[job.pk])
    client.force_login(bob)
    assert client.post(url).status_code == 302 and Game.objects.get(pk=job.game_id).language == "fr"
    client.force_login(alice)
    assert client.get(url).status_code == 405


def test_correcting_before_the_text_was_read_says_why(client, alice):
    job = IngestJobFactory()
    client.force_login(alice)
    response = client.post(reverse("oracle-ingest-correct-language", args=[job.pk]), follow=True)
    assert "L'ingestion n'a pas encore lu la langue de ce livret." in html.unescape(response.content.decode())


def stored_language_of(page: str):
    return json.loads(re.search(r'<script id="ingest-language" type="application/json">(.*?)</script>', page, re.S)[1])


def test_a_finished_job_opened_afresh_shows_the_language_it_read(client, alice):
    """The page carries the language event of the job's latest run for its script to show at
    once: reloaded after the job's end, « Livret prêt » showed without « Langue détectée »."""
    job = IngestJobFactory(status=IngestJob.Status.DONE)
    job.emit("language", {"detected": "fr", "detected_label": "français", "declared": "fr", "applied": True, "mismatch": False})
    client.force_login(alice)

    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()
    assert stored_language_of(page)["detected"] == "fr" and stored_language_of(page)["applied"] is True

    job.emit("retry", {})  # relaunched: the new run has not read its language yet
    page = client.get(reverse("oracle-ingest-job", args=[job.pk])).content.decode()
    assert stored_language_of(page) is None
