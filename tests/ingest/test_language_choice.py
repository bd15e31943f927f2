"""A booklet's language: left to detection it is read in the text; chosen and contradicted by
the text, one call (the job page's button) corrects it and what depends on it."""

import html

import pytest
from django.urls import reverse

from games.indexing import sync_if_changed
from games.models import Chunk, Game
from games.services import booklet_status
from ingest import language_choice
from runtime import components
from tests.factories import GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf
from tests.ingest.running import ingest_inline

ENGLISH = [("1. Setup", [
    "Each player takes a driver board and puts the speed marker on the zero space of the track. "
    "Shuffle the race cards and deal seven of them to each player.",
    "The first player is the one who drove a car most recently. They take the start token.",
])]


@pytest.mark.parametrize("sent, requested", [
    (None, ""), ("", ""), (" auto ", ""), ("fr", "fr"), ("Anglais", "en"), ("en-GB", "en"), ("de", "de"),
])
def test_what_the_admin_sent_becomes_a_language_or_detection(sent, requested):
    assert language_choice.requested_language(sent) == requested


def test_a_language_that_is_no_code_is_refused():
    with pytest.raises(language_choice.UnknownLanguage):
        language_choice.requested_language("klingon!")


@pytest.mark.django_db
def test_a_booklet_left_to_detection_takes_the_language_of_its_text(tmp_path):
    job = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", ENGLISH), new_game_name="Heat")

    assert job.detect_language and Game.objects.get(pk=job.game_id).language == "en"
    assert {c.payload["language"] for c in Chunk.objects.filter(game=job.game)} == {"en"}
    event = job.events.get(event="language").data
    assert event["detected"] == "en" and event["applied"] and not event["mismatch"]
    assert not job.events.filter(event="warning").exists()


@pytest.mark.django_db
def test_an_extension_left_to_detection_keeps_a_french_text_french(tmp_path):
    game = GameFactory(language="en")
    job = ingest_inline(rulebook_pdf(tmp_path / "ext.pdf", LOREM_RULES), game=game, kind="extension", name="Tempête")

    assert job.extension.language == "fr" and Game.objects.get(pk=game.pk).language == "en"


@pytest.mark.django_db
def test_a_chosen_language_the_text_contradicts_is_corrected_with_what_depends_on_it(tmp_path):
    job = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", ENGLISH), new_game_name="Heat", language="fr")
    event = job.events.get(event="language").data
    assert event["mismatch"] and event["detected"] == "en" and Game.objects.get(pk=job.game_id).language == "fr"
    store = components.vector_store()
    sync_if_changed(store)
    assert {point.payload["language"] for point in store.scroll("rules_heat")} == {"fr"}

    assert language_choice.correct_language(job) == "en"

    heat = Game.objects.get(pk=job.game_id)
    assert heat.language == "en"
    assert {c.payload["language"] for c in Chunk.objects.filter(collection="rules_heat")} == {"en"}
    # Searched in its language at once: this process owns the index, as the web process that
    # serves the button does (the API's PATCH takes the same path).
    assert {point.payload["language"] for point in store.scroll("rules_heat")} == {"en"}
    assert booklet_status(heat.base_booklet).index_state == "indexed"
    corrected = job.events.filter(event="language").last().data
    assert corrected["corrected"] and corrected["declared"] == "fr" and corrected["detected"] == "en"


@pytest.mark.django_db
def test_the_job_page_says_the_corrected_booklet_is_already_searched_in_its_language(client, alice, tmp_path):
    job = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", ENGLISH), new_game_name="Heat", language="fr")
    client.force_login(alice)

    response = client.post(reverse("oracle-ingest-correct-language", args=[job.pk]), follow=True)

    page = html.unescape(response.content.decode())
    assert "Langue du livret corrigée : anglais. Ses passages sont déjà réindexés dans cette langue." in page
    assert {point.payload["language"] for point in components.vector_store().scroll("rules_heat")} == {"en"}


@pytest.mark.django_db
def test_when_another_process_owns_the_index_the_job_page_says_it_is_updating(client, alice, tmp_path, monkeypatch):
    from rag.store_base import VectorStoreError

    job = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", ENGLISH), new_game_name="Heat", language="fr")

    def locked():
        raise VectorStoreError("the local store belongs to another process")

    monkeypatch.setattr(components, "vector_store", locked)
    client.force_login(alice)

    response = client.post(reverse("oracle-ingest-correct-language", args=[job.pk]), follow=True)

    assert "Langue du livret corrigée : anglais. L'index se met à jour." in html.unescape(response.content.decode())
    assert booklet_status(Game.objects.get(pk=job.game_id).base_booklet).index_state == "pending"  # its owner syncs it


@pytest.mark.django_db
def test_correcting_before_the_text_was_read_says_so(tmp_path):
    from tests.factories import IngestJobFactory

    with pytest.raises(language_choice.UnknownLanguage):
        language_choice.correct_language(IngestJobFactory())


@pytest.mark.django_db
def test_the_rest_upload_detects_the_language_when_none_is_sent(client, alice, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(alice)
    english = rulebook_pdf(tmp_path / "heat.pdf", ENGLISH).read_bytes()

    def upload(**data):
        return client.post("/api/games/ingest", {"pdf": SimpleUploadedFile("rules.pdf", english, "application/pdf"), **data})

    detected = upload(new_game_name="Heat")
    chosen = upload(new_game_name="Heat 2", language="fr")

    assert detected.status_code == chosen.status_code == 202
    assert Game.objects.get(pk=detected.json()["game_id"]).language == "en"
    assert Game.objects.get(pk=chosen.json()["game_id"]).language == "fr"  # chosen: a warning, never overridden
    assert upload(new_game_name="Heat 3", language="klingon!").status_code == 422


@pytest.mark.django_db
def test_a_text_that_says_nothing_keeps_the_provisional_language():
    from tests.factories import IngestJobFactory

    job = IngestJobFactory(detect_language=True, game=GameFactory(language="fr"))

    settled = language_choice.settle(job, job.booklet, "2 × 3 = 6 ; 7 + 8")

    assert settled.detected is None and not settled.applied and not settled.mismatch
    assert Game.objects.get(pk=job.game_id).language == "fr"


@pytest.mark.django_db
def test_a_language_chosen_for_a_re_uploaded_booklet_becomes_its_language_and_its_chunks(tmp_path):
    english = ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", ENGLISH), new_game_name="Heat")
    game = Game.objects.get(pk=english.game_id)
    assert game.language == "en"

    # French rules replace the English ones, the admin saying so (--language fr, the API's `language`)
    job = ingest_inline(rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES), game=game, language="fr")

    assert Game.objects.get(pk=game.pk).language == "fr"
    assert {c.payload["language"] for c in Chunk.objects.filter(game=game)} == {"fr"}
    event = job.events.get(event="language").data
    assert event["declared"] == "fr" and event["detected"] == "fr" and not event["mismatch"]
    assert not job.events.filter(event="warning").exists(), "no warning against what the admin just declared"


@pytest.mark.django_db
def test_a_chosen_language_is_given_to_an_existing_booklet_that_serves_no_pdf(tmp_path):
    game = GameFactory(language="en")  # its only ingestion failed: no PDF, no rules

    job = ingest_inline(rulebook_pdf(tmp_path / "ext.pdf", LOREM_RULES), game=game, language="fr")

    assert Game.objects.get(pk=game.pk).language == "fr"
    assert {c.payload["language"] for c in Chunk.objects.filter(ingest_job=job)} == {"fr"}


@pytest.mark.django_db
def test_a_chosen_language_the_re_uploaded_text_contradicts_is_kept_and_warned_about_as_chosen(tmp_path):
    ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", ENGLISH), new_game_name="Heat")
    game = Game.objects.get(slug="heat")

    job = ingest_inline(rulebook_pdf(tmp_path / "v2.pdf", ENGLISH), game=game, language="fr")

    assert Game.objects.get(pk=game.pk).language == "fr"
    event = job.events.get(event="language").data
    assert event["declared"] == "fr" and event["mismatch"]
    assert "« fr »" in job.events.get(event="warning").data["message"]


@pytest.mark.django_db
def test_with_no_language_sent_a_re_uploaded_booklet_still_takes_the_language_of_its_text(tmp_path):
    ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", ENGLISH), new_game_name="Heat")
    game = Game.objects.get(slug="heat")

    job = ingest_inline(rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES), game=game)

    assert job.detect_language and Game.objects.get(pk=game.pk).language == "fr"
    assert {c.payload["language"] for c in Chunk.objects.filter(game=game)} == {"fr"}


@pytest.mark.django_db
def test_a_replacement_s_chosen_language_waits_for_its_swap(settings):
    from ingest import booklet_swap
    from tests.factories import IngestJobFactory

    game = GameFactory(language="en", pdf="pdfs/heat-old.pdf")
    job = IngestJobFactory(game=game, pdf_path="pdfs/heat-new.pdf", status="running", **language_choice.job_fields("fr"))
    replacement = booklet_swap.Replacement(job)
    text = ENGLISH[0][1][0] + " " + ENGLISH[0][1][1]

    settled = language_choice.settle(job, job.booklet, text, write=replacement.set_language)
    job.emit("language", settled.as_event())

    assert replacement.language == "fr" and settled.declared == "fr" and settled.mismatch
    assert Game.objects.get(pk=game.pk).language == "en", "still serving its English chunks until the swap"
    # The swap would give it « fr » again: a correction is refused until the job is over.
    with pytest.raises(language_choice.UnknownLanguage, match="quand son nouveau PDF sera adopté"):
        language_choice.correct_language(job)
