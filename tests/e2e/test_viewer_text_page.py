"""The booklet viewer on a page with a text layer: the highlight sits on the quoted words and
stops at them, whatever the zoom; the quote banner never covers the page."""


import pytest
from django.core.files.base import ContentFile

from eval.booklets import EVAL_CORPUS
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
    game = GameFactory(name="Course Folle", slug="course-folle", rules=True)
    game.pdf.save("course-folle.pdf", ContentFile(pdf))
    return game, pdf


def open_viewer(browser, base_url, user, game, *, quote=QUOTE, page=2, **options):
    tab = open_signed_in(browser, base_url, user, **options)
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


def page_width(tab, number=2) -> float:
    return tab.locator(f'.page[data-page-number="{number}"] canvas').first.bounding_box()["width"]


def zoom(tab, button: str) -> float:
    """Click a zoom button (or press keys); the new scale once pdf.js has drawn the page again."""
    before = tab.locator("body").get_attribute("data-scale")
    if button.startswith("#"):
        tab.click(button)
    else:
        tab.keyboard.press(button)
    tab.wait_for_function("old => document.body.dataset.scale !== old", arg=before)
    tab.locator('.page[data-page-number="2"][data-loaded] .textLayer .highlight').first.wait_for(timeout=10_000)
    return float(tab.locator("body").get_attribute("data-scale"))


def test_zoom_buttons_scale_the_page_and_the_highlight_follows(browser, live_daphne, booklet, bob):
    game, pdf = booklet
    words, size = quote_in_pdf(pdf, 2, QUOTE)
    tab = open_viewer(browser, live_daphne, bob, game)
    tab.locator('.page[data-page-number="2"][data-loaded] .textLayer .highlight').first.wait_for(timeout=10_000)
    fit_scale, fit_width = float(tab.locator("body").get_attribute("data-scale")), page_width(tab)
    container = tab.locator("#viewerContainer").bounding_box()
    assert container["width"] - 60 <= fit_width <= container["width"]  # « Pleine largeur » at first

    scale = zoom(tab, "#zoom-in")
    scale = zoom(tab, "#zoom-in")
    assert scale > fit_scale * 1.15
    assert page_width(tab) == pytest.approx(fit_width * scale / fit_scale, rel=0.02)
    assert tab.locator("#zoom-level").inner_text() == f"{round(scale * 100)} %"
    assert tab.evaluate("document.getElementById('viewerContainer').scrollWidth") > container["width"]  # pan to read
    expected = on_screen(tab, 2, words, size)
    assert_on_the_words(highlight_boxes(tab, 2, ".textLayer .highlight"), expected, slack=0.25 * expected.height)
    view = tab.locator("#viewerContainer").bounding_box()
    assert view["y"] <= expected.top and expected.bottom <= view["y"] + view["height"]  # the quote kept in sight
    assert view["x"] <= expected.left and expected.right <= view["x"] + view["width"]
    screenshot(tab, "viewer-zoomed-in")

    assert zoom(tab, "#zoom-out") < scale
    assert zoom(tab, "#zoom-fit") == pytest.approx(fit_scale)
    assert page_width(tab) == pytest.approx(fit_width, abs=1)
    assert zoom(tab, "Control+=") > fit_scale  # the keyboard zooms the booklet, not the page around it
    assert zoom(tab, "Control+0") == pytest.approx(fit_scale)


def test_on_a_phone_the_page_fills_the_width_and_pinching_enlarges_the_text(browser, live_daphne, booklet, bob):
    game, pdf = booklet
    tab = open_viewer(browser, live_daphne, bob, game, viewport={"width": 390, "height": 844}, has_touch=True)
    tab.locator('.page[data-page-number="2"][data-loaded] .textLayer .highlight').first.wait_for(timeout=10_000)
    assert page_width(tab) >= 385  # no grey frame around the page on a phone
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    toolbar = tab.locator(".viewer-toolbar").bounding_box()
    assert toolbar["width"] <= 390 and tab.locator("#zoom-in").is_visible() and tab.locator("#zoom-fit").is_visible()
    screenshot(tab, "viewer-phone-fit-width")
    before = float(tab.locator("body").get_attribute("data-scale"))

    cdp = tab.context.new_cdp_session(tab)
    words = tab.locator('.page[data-page-number="2"] .textLayer .highlight').first.bounding_box()
    cx, cy = 195, words["y"] + words["height"] / 2  # the fingers on the quote's line

    def touch(kind: str, gap: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": cx - gap, "y": cy, "id": 1}, {"x": cx + gap, "y": cy, "id": 2}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", 40)
    for gap in range(50, 130, 10):
        touch("touchMove", gap)
    touch("touchEnd", 0)
    tab.wait_for_function("old => Number(document.body.dataset.scale) > old * 2.5", arg=before, timeout=10_000)
    tab.locator('.page[data-page-number="2"][data-loaded] .textLayer .highlight').first.wait_for(timeout=10_000)
    glyphs = tab.locator('.page[data-page-number="2"] .textLayer .highlight').first.bounding_box()
    assert glyphs["height"] >= 20  # body text about as large as the phone's own text, or larger
    assert abs(glyphs["y"] + glyphs["height"] / 2 - cy) < glyphs["height"]  # the quote's line stayed under the fingers  # body text about as large as the phone's own text, or larger
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390  # the page pans inside the viewer
    screenshot(tab, "viewer-phone-pinched")


RULEBOOK = EVAL_CORPUS / "rulebooks/artigiano-renaissance_regle_fr.pdf"  # ../shared/eval-corpus, as eval finds it


@pytest.mark.skipif(not RULEBOOK.is_file(), reason="needs the eval corpus (../shared/eval-corpus or EVAL_CORPUS_DIR)")
def test_a_real_rulebook_quote_over_two_lines_with_a_ligature_is_highlighted_on_its_lines(browser, live_daphne, bob):
    game = GameFactory(name="Artigiano", slug="artigiano", rules=True)
    game.pdf.save("artigiano.pdf", ContentFile(RULEBOOK.read_bytes()))
    # "Enﬁn" is written with the ﬁ ligature; the quote's two lines, as pdfminer places them:
    first, size = quote_in_pdf(RULEBOOK.read_bytes(), 2, "améliorer les matériaux ou les châteaux. En")
    second, _ = quote_in_pdf(RULEBOOK.read_bytes(), 2, "vous devrez tout")
    tab = open_viewer(browser, live_daphne, bob, game, quote="améliorer les matériaux ou les châteaux. Enfin, vous devrez tout", page=2)
    tab.locator('.page[data-page-number="2"][data-loaded] .textLayer .highlight').first.wait_for(timeout=10_000)
    drawn = highlight_boxes(tab, 2, ".textLayer .highlight")
    lines = [on_screen(tab, 2, box, size) for box in (first, second)]
    for line in lines:
        on_line = [b for b in drawn if line.overlap(b) > 0]
        assert on_line, f"nothing highlighted on the line at {line}"
        assert min(b.top for b in on_line) >= line.top - 0.3 * line.height and max(b.bottom for b in on_line) <= line.bottom + 0.3 * line.height
    screenshot(tab, "viewer-real-rulebook-two-lines")
