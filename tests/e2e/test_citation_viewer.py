"""A click on a citation opens the booklet's PDF at the cited page, the quote highlighted."""

import pytest

from tests.e2e.conftest import open_signed_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def ask_and_wait(page, question):
    page.fill("#question", question)
    page.click("#ask-button")
    page.wait_for_selector(".turn[data-state=done]", timeout=60_000)


def test_citation_opens_the_pdf_at_the_cited_page_with_the_quote_highlighted(browser, live_daphne, course_folle, bob):
    game, extension = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/?ext={extension.pk}")

    ask_and_wait(page, "Combien de cartes le joueur actif pioche-t-il au début de son tour ?")

    citation = page.locator("a.citation", has_text="Course Folle, p.2").first
    assert citation.get_attribute("href") == f"/booklets/{game.pk}/pdf#page=2"
    citation.click()
    assert page.is_visible("#viewer-pane")
    viewer = page.frame_locator("#viewer-frame")
    viewer.locator("body[data-state=ready]").wait_for(timeout=30_000)
    viewer.locator("body[data-quote-found=true]").wait_for(timeout=30_000)
    assert viewer.locator("body").get_attribute("data-current-page") == "2"
    assert viewer.locator("#page-number").inner_text() == "2"
    highlighted = viewer.locator(".textLayer .highlight").first
    highlighted.wait_for(timeout=10_000)
    page_of_highlight = viewer.locator(".page", has=viewer.locator(".textLayer .highlight")).first
    assert page_of_highlight.get_attribute("data-page-number") == "2"
    screenshot(page, "chat-citation-viewer")

    page.click("#viewer-close")
    with page.context.expect_page() as opened:  # Ctrl-click: the PDF in a new tab, as for any link
        citation.click(modifiers=["Control"])
    assert opened.value.url.endswith(f"/booklets/{game.pk}/pdf#page=2")
    assert not page.is_visible("#viewer-pane")


def test_pages_fit_a_phone_screen(browser, live_daphne, course_folle, bob):
    game, extension = course_folle
    page = open_signed_in(browser, live_daphne, bob, viewport={"width": 390, "height": 844})
    page.goto("/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "home-phone")
    page.goto(f"/jeux/{game.slug}/?ext={extension.pk}")
    ask_and_wait(page, "Que fait la pluie dans les virages ?")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "chat-phone")
    page.locator("a.citation").first.click()
    page.frame_locator("#viewer-frame").locator("body[data-state=ready]").wait_for(timeout=30_000)
    box = page.locator("#viewer-pane").bounding_box()
    assert box["width"] == 390  # the booklet takes the whole phone screen
    screenshot(page, "viewer-phone")
    for _ in range(4):  # the chat it covers is out of reach: focus stays in the viewer (or leaves the page)
        page.keyboard.press("Shift+Tab")
        focused = page.evaluate("document.activeElement.id || document.activeElement.tagName")
        assert page.evaluate("document.getElementById('viewer-pane').contains(document.activeElement)"
                             " || document.activeElement === document.body"), focused
    assert page.get_attribute("#viewer-pane", "aria-modal") == "true"
    page.click("#viewer-close")
    assert not page.is_visible("#viewer-pane")
