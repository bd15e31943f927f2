"""An admin uploads a booklet in the wizard, watches its acts complete (surviving a reload),
then asks about it and opens the cited page: the issue's « done when » in one browser."""

import re

import pytest

from ingest.models import IngestJob
from tests.e2e.booklets import pdf_of_pages
from tests.e2e.conftest import open_signed_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Over OCR_AUTO_THRESHOLD (200) characters a page: the text layer suffices, no OCR runs.
PAGES = {
    1: "Les Voltigeurs\nChaque joueur commence avec trois jetons Vent et une carte Cap. Les ballons "
       "partent du village dans l'ordre du tour. Au début de chaque manche, le premier joueur révèle "
       "la direction du vent et chaque ballon dérive d'une case dans cette direction.",
    2: "Atterrissage\nUn ballon qui touche le sol perd deux jetons Vent et passe son prochain tour. "
       "Son pilote reprend ensuite la course depuis la case où il s'est posé, sans carte Cap. "
       "Un ballon sans aucun jeton Vent ne peut plus monter et doit atterrir au tour suivant.",
}
TEXT_ACTS = ["Lecture", "Découpage", "Structuration", "Analyse contextuelle", "Compréhension", "Archivage"]


def test_admin_uploads_watches_acts_then_asks_and_opens_the_cited_page(browser, live_daphne, qcluster, alice, tmp_path):
    pdf_path = tmp_path / "voltigeurs.pdf"
    pdf_path.write_bytes(pdf_of_pages(PAGES))
    page = open_signed_in(browser, live_daphne, alice)
    page.goto("/ingestion/nouvelle/")
    page.set_input_files("input[name=pdf]", str(pdf_path))
    page.fill("input[name=new_game_name]", "Les Voltigeurs")
    screenshot(page, "ingest-wizard")
    assert page.locator("select[name=language]").input_value() == ""  # « Détecter »
    page.click("#ingest-submit")

    page.wait_for_url(re.compile(r"/ingestion/[0-9a-f-]{36}/$"))
    assert page.locator(".act:not([hidden])").count() >= 6  # every act listed at once, done or to come
    page.locator(".act[data-act=read]:not([data-state=pending])").wait_for(timeout=60_000)
    assert re.search(r"restante|Estimation", page.locator("#remaining").inner_text())
    screenshot(page, "ingest-running")
    page.reload()  # the progress view is rebuilt from the stored events
    page.locator("#job-done").wait_for(state="visible", timeout=180_000)
    screenshot(page, "ingest-done")

    labels = page.locator(".act .act-label").all_inner_texts()
    assert labels == TEXT_ACTS  # no « Reconnaissance optique »: this PDF has a text layer
    assert page.locator('.act:not([data-state="done"])').count() == 0
    assert re.fullmatch(r"\d+/\d+", page.locator(".act[data-act=embed] .act-counts").inner_text())
    assert IngestJob.objects.get().status == IngestJob.Status.DONE
    assert page.locator("#overall").is_hidden()
    assert page.locator("#language-text").inner_text() == "Langue détectée dans le texte : français."
    assert page.locator("#language-fix").is_hidden()  # nothing to correct

    page.click("#job-done a")
    page.wait_for_url(re.compile(r"/jeux/les-voltigeurs/"))
    page.fill("#question", "Que se passe-t-il quand un ballon touche le sol ?")
    page.click("#ask-button")
    page.wait_for_selector(".turn[data-state=done]", timeout=60_000)
    page.locator("a.citation", has_text="p.2").first.click()
    viewer = page.frame_locator("#viewer-frame")
    viewer.locator("body[data-state=ready]").wait_for(timeout=30_000)
    assert viewer.locator("body").get_attribute("data-current-page") == "2"


ENGLISH_PAGES = {
    1: "The Balloonists\nEach player starts with three Wind tokens and one Heading card. The balloons "
       "leave the village in turn order. At the start of each round, the first player reveals the "
       "direction of the wind and every balloon drifts one space in that direction.",
    2: "Landing\nA balloon that touches the ground loses two Wind tokens and skips its next turn. "
       "Its pilot then resumes the race from the space where it landed, without a Heading card. "
       "A balloon without any Wind token cannot climb and must land on the following turn.",
}


def test_a_language_the_text_contradicts_is_corrected_in_one_click(browser, live_daphne, qcluster, alice, tmp_path):
    from games.models import Game

    pdf_path = tmp_path / "balloonists.pdf"
    pdf_path.write_bytes(pdf_of_pages(ENGLISH_PAGES))
    page = open_signed_in(browser, live_daphne, alice)
    page.goto("/ingestion/nouvelle/")
    page.set_input_files("input[name=pdf]", str(pdf_path))
    page.fill("input[name=new_game_name]", "The Balloonists")
    page.select_option("select[name=language]", "fr")
    page.click("#ingest-submit")
    page.wait_for_url(re.compile(r"/ingestion/[0-9a-f-]{36}/$"))

    page.locator("#language-fix").wait_for(state="visible", timeout=120_000)
    assert page.locator("#language-text").inner_text() == "Le texte semble en anglais, mais la langue choisie est français."
    page.locator("#job-done").wait_for(state="visible", timeout=180_000)
    screenshot(page, "ingest-language-mismatch")
    page.click("#language-fix button")

    page.locator(".flash").wait_for(timeout=30_000)
    assert "Langue du livret corrigée : anglais." in page.locator(".flash").inner_text()
    page.locator("#language-text", has_text="Langue corrigée : anglais.").wait_for(timeout=30_000)
    assert page.locator("#language-fix").is_hidden()
    assert Game.objects.get(slug="the-balloonists").language == "en"
