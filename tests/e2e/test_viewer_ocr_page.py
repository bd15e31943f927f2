"""The booklet viewer on a scanned page (no text layer): the quote is highlighted from the
word boxes tesseract gave at ingestion, on the words, at every zoom."""

import os
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from tests.e2e.conftest import open_signed_in, screenshot
from tests.e2e.viewer_pages import Box, assert_on_the_words, drawn_box, highlight_boxes, on_screen, quote_in_pdf
from tests.ingest.pdfs import scanned_pdf
from tests.ingest.running import ingest_inline

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LINES = [
    "Le dragon rouge garde le tresor",
    "du donjon pendant trois tours.",
    "Un heros qui le bat prend la clef.",
]
QUOTE = "garde le trésor du donjon"  # over two lines, with the accent the scan lacks
A4_POINTS = (595.28, 841.89)


@pytest.fixture
def scanned_game(transactional_db, tmp_path):
    """A booklet whose second page is an image only, ingested (OCR) before the server starts."""
    pdf = scanned_pdf(tmp_path / "donjon.pdf", [["Regles du donjon", "Mise en place"], LINES], tmp_path)
    job = ingest_inline(pdf, new_game_name="Donjon")
    assert job.stats["ocr"]["pages_ocr"] == 2 and job.stats["ocr_word_pages"] == 2
    return job.game


def ocr_boxes_on_the_words(tab) -> None:
    tab.locator('.page[data-page-number="2"][data-loaded] .ocr-highlight').first.wait_for(timeout=10_000)
    drawn = highlight_boxes(tab, 2, ".ocr-highlight")
    assert len(drawn) == 2  # one box per line of the quote
    for box, (line, phrase) in zip(sorted(drawn, key=lambda b: b.top), [(0, "garde le tresor"), (1, "du donjon")]):
        words = on_screen(tab, 2, drawn_box(LINES, line, phrase), (1, 1))
        assert_on_the_words([box], words, slack=0.3 * words.height)


def test_a_quote_on_a_scanned_page_is_highlighted_from_the_ocr_words(scanned_game, browser, live_daphne, bob):
    tab = open_signed_in(browser, live_daphne, bob)
    tab.goto(f"/booklets/{scanned_game.pk}/view?page=2&q={QUOTE}")
    tab.locator("body[data-state=ready]").wait_for(timeout=30_000)
    tab.locator("body[data-quote-source=ocr][data-quote-found=true]").wait_for(timeout=30_000)
    assert tab.locator("#find-status").inner_text() == "Citation surlignée"
    assert tab.locator(".textLayer .highlight").count() == 0  # no text layer on a scan
    ocr_boxes_on_the_words(tab)
    screenshot(tab, "viewer-ocr-highlight")

    before = tab.locator("body").get_attribute("data-scale")
    tab.click("#zoom-in")
    tab.click("#zoom-in")
    tab.wait_for_function("old => Number(document.body.dataset.scale) > Number(old) * 1.15", arg=before)
    ocr_boxes_on_the_words(tab)  # drawn again on the page pdf.js re-rendered
    screenshot(tab, "viewer-ocr-zoomed-in")

    tab.click("#zoom-fit")
    tab.wait_for_function("old => document.body.dataset.scale === old", arg=before)
    ocr_boxes_on_the_words(tab)


MATCHING = """async () => {
  const { matchWords } = await import(document.querySelector("script[type=module]").src);
  const words = (text) => text.split(" ").map((word, i) => [0, 0, 1, 1, word, 0]);
  return [
    matchWords(words("Le héros pren- dra la clef du donjon"), "prendra la clef"),  // across the hyphen
    matchWords(words("Le heros prend Ia clef du donjon."), "prend la clef du donjon"),  // OCR misread: 4 of 5 words
    matchWords(words("Le heros prend Ia cIef du donjon."), "prend la clef en bois"),   // 1 of 5: nothing
  ];
}"""


def test_a_quote_absent_from_the_scan_says_so(scanned_game, browser, live_daphne, bob):
    tab = open_signed_in(browser, live_daphne, bob)
    tab.goto(f"/booklets/{scanned_game.pk}/view?page=2&q=La licorne bleue vole")
    tab.locator("body[data-state=ready]").wait_for(timeout=30_000)
    tab.locator("body[data-quote-found=false]").wait_for(timeout=30_000)
    tab.wait_for_load_state("networkidle")
    assert tab.locator(".ocr-highlight").count() == 0
    assert tab.locator("#find-status").inner_text() == "Citation introuvable telle quelle sur la page"
    assert tab.evaluate(MATCHING) == [[2, 3, 4, 5], [2, 3, 4, 5, 6], []]


RULEBOOK = Path(os.environ.get("EVAL_CORPUS_DIR", "/work/shared/eval-corpus")) / "rulebooks/artigiano-renaissance_regle_fr.pdf"
REAL_QUOTE = "Le stock peut contenir trois cartes."


@pytest.mark.skipif(not RULEBOOK.is_file(), reason="needs the eval corpus (EVAL_CORPUS_DIR)")
def test_a_real_rulebook_page_scanned_is_highlighted_where_the_text_was(browser, live_daphne, bob, tmp_path):
    """Page 2 of a real rulebook rasterised at 150 DPI (pdftoppm) into an image-only PDF
    (Pillow): the OCR boxes land where the original's text layer has the quote."""
    subprocess.run(["pdftoppm", "-f", "2", "-l", "2", "-r", "150", "-png", str(RULEBOOK), str(tmp_path / "raster")], check=True)
    scan = tmp_path / "artigiano-scan.pdf"
    with Image.open(next(tmp_path.glob("raster*.png"))) as image:
        image.convert("RGB").save(scan, "PDF", resolution=150.0)
    job = ingest_inline(scan, new_game_name="Artigiano")
    assert job.stats["ocr"]["outcome"] == "no_text" and job.stats["ocr_word_pages"] == 1
    words, size = quote_in_pdf(RULEBOOK.read_bytes(), 2, REAL_QUOTE)

    tab = open_signed_in(browser, live_daphne, bob)
    tab.goto(f"/booklets/{job.game.pk}/view?page=1&q={REAL_QUOTE}")
    tab.locator("body[data-quote-source=ocr][data-quote-found=true]").wait_for(timeout=30_000)
    tab.locator('.page[data-page-number="1"][data-loaded] .ocr-highlight').first.wait_for(timeout=10_000)

    expected = on_screen(tab, 1, Box(words.left / size[0], words.top / size[1], words.right / size[0], words.bottom / size[1]), (1, 1))
    assert_on_the_words(highlight_boxes(tab, 1, ".ocr-highlight"), expected, slack=0.3 * expected.height)
    screenshot(tab, "viewer-ocr-real-rulebook")
