"""The booklet viewer on a page with a text layer: the highlight sits on the quoted words and
stops at them, whatever the zoom; the quote banner never covers the page."""

import pytest
from django.core.files.base import ContentFile

from tests.e2e.booklets import pdf_of_pages
from tests.e2e.conftest import open_signed_in, screenshot
from tests.e2e.viewer_pages import assert_on_the_words, highlight_boxes, on_screen, quote_in_pdf
from tests.factories import GameFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PAGES = {
    1: "Mise en place\nChaque joueur prend une voiture, un tableau de bord et trois cartes Vitesse.",
    2: "Tour de jeu\nAu début de son tour, le joueur actif pioche deux cartes puis il peut jouer "
       "une carte Boost s'il n'a pas dépassé la limite de vitesse du virage où il se trouve.",
}
QUOTE = "pioche deux cartes"


@pytest.fixture
def booklet(transactional_db):
    pdf = pdf_of_pages(PAGES)
    game = GameFactory(name="Course Folle", slug="course-folle")
    game.pdf.save("course-folle.pdf", ContentFile(pdf))
    return game, pdf


def open_viewer(browser, base_url, user, game, *, quote=QUOTE, page=2, viewport=None):
    tab = open_signed_in(browser, base_url, user, viewport=viewport)
    tab.goto(f"/booklets/{game.pk}/view?page={page}&q={quote}")
    tab.locator("body[data-state=ready]").wait_for(timeout=30_000)
    tab.locator("body[data-quote-found=true]").wait_for(timeout=30_000)
    return tab


def test_highlight_sits_on_the_quoted_words_and_stops_at_them(browser, live_daphne, booklet, bob):
    game, pdf = booklet
    words, size = quote_in_pdf(pdf, 2, QUOTE)
    tab = open_viewer(browser, live_daphne, bob, game)
    tab.locator('.page[data-page-number="2"] .textLayer .highlight').first.wait_for(timeout=10_000)

    drawn = highlight_boxes(tab, 2, ".textLayer .highlight")
    expected = on_screen(tab, 2, words, size)
    assert_on_the_words(drawn, expected, slack=0.25 * expected.height)
    banner = tab.locator("#quote").bounding_box()
    container = tab.locator("#viewerContainer").bounding_box()
    assert banner["y"] + banner["height"] <= container["y"] + 0.5  # the banner is above the pages, never over them
    screenshot(tab, "viewer-text-highlight")
