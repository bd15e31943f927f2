"""A player's screen, in a real Chromium on a 390×844 phone and a 1280×800 desktop, in French and
English: nothing wider than the screen on the chat, the viewer, a reopened conversation and
the ingest pages; the viewer's toolbar on screen, a phone's booklet at page width; suggested
questions and the question box's example in the page's language; Escape closes the viewer
and gives the focus back to the citation; offline, no « Régénérer » that would give the same
answer; the diagnostics in words; icons drawn, no emoji code point set as text; /favicon.ico;
the viewer's page counter follows the page in view."""

from __future__ import annotations

import pytest

from ingest.models import IngestJob
from tests.e2e.conftest import open_signed_in, screenshot
from tests.e2e.test_a11y import french_in
from tests.factories import IngestJobFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

# Elements that stick out of the screen, once clipped by their scrolling or clipping ancestors.
TOO_WIDE = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const element of document.querySelectorAll('body *')) {
    const box = element.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    let [left, right] = [box.left, box.right];
    for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
      const style = getComputedStyle(parent);
      if (style.overflowX !== 'visible' || style.clip !== 'auto') {
        const clip = parent.getBoundingClientRect();
        [left, right] = [Math.max(left, clip.left), Math.min(right, clip.right)];
      }
    }
    if (right - left <= 0) continue;
    if (left < -1 || right > width + 1)
      wide.push(`${element.tagName.toLowerCase()}.${element.className.baseVal ?? element.className} ${Math.round(left)}..${Math.round(right)}`);
  }
  return { scrollWidth: document.documentElement.scrollWidth, width, wide: wide.slice(0, 10) };
}"""

# Emoji set as text (the page's text and its ::before/::after content): an empty box where no
# emoji font is installed. Extended_Pictographic: 👍, ↗, ⚠…
EMOJI_AS_TEXT = r"""() => {
  const emoji = /\p{Extended_Pictographic}/u;
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) if (emoji.test(walker.currentNode.data)) found.push(walker.currentNode.data.trim());
  for (const element of document.querySelectorAll('body, body *'))
    for (const pseudo of ['::before', '::after']) {
      const content = getComputedStyle(element, pseudo).content;
      if (content && content !== 'none' && emoji.test(content)) found.push(`${element.className} ${pseudo} ${content}`);
    }
  return found;
}"""


# A live turn's « Arrêter » while the Oracle still searches, once it writes (no text yet:
# the model silent, a deck prepared), then once text came.
STOP_SHOWN_WITH = """() => {
  const turn = document.createElement('li');
  turn.className = 'turn';
  turn.innerHTML = '<p class="phase"></p><div class="answer streaming"></div><div class="turn-actions"><button class="stop-answer">stop</button></div>';
  document.body.append(turn);
  const shown = () => getComputedStyle(turn.querySelector('.stop-answer')).display !== 'none';
  const searching = shown();
  turn.querySelector('.phase').innerHTML = '<span data-phase="write">writes</span>';
  const writing = shown();
  turn.querySelector('.answer').append('Le joueur actif');
  const streaming = shown();
  turn.remove();
  return [searching, writing, streaming];
}"""


def assert_fits(target, what):
    found = target.evaluate(TOO_WIDE)
    assert found["scrollWidth"] <= found["width"] and found["wide"] == [], (what, found)


def on_screen(box, viewport) -> bool:
    return box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5 \
        and box["y"] + box["height"] <= viewport["height"] + 0.5


def ask(page, question):
    page.fill("#question", question)
    page.click("#ask-button")
    page.locator(".turn[data-state=done]").last.wait_for(timeout=120_000)


def viewer_frame(page):
    return next(frame for frame in page.frames if "/view?" in frame.url)


EXPECTED = {
    "fr-FR": ("Comment met-on le jeu en place ?", "Ex. : ", "recherche"),
    "en-US": ("How do I set up the game?", "E.g.: ", "search"),
}


@pytest.fixture
def long_names(course_folle):
    """The two-booklet game, with names long enough to cross a phone's screen."""
    game, extension = course_folle
    game.booklet_name = "Course Folle — Règles du jeu complètes et illustrées"
    game.save()
    extension.name = "Heavy Rain (extension officielle du championnat)"
    extension.save()
    return game, extension


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_chat_viewer_and_ingest_pages_hold_on_every_screen_in_both_languages(
    browser, live_daphne, long_names, bob, alice, viewport
):
    game, extension = long_names
    job = IngestJobFactory(game=game, extension=extension, booklet_kind="extension", status=IngestJob.Status.DONE)
    size = f"{viewport['width']}x{viewport['height']}"
    for locale, (setup_question, example, search_word) in EXPECTED.items():
        page = open_signed_in(browser, live_daphne, bob, viewport=viewport, locale=locale)
        page.goto(f"/jeux/{game.slug}/")
        assert page.get_attribute("html", "lang") == locale[:2]
        assert_fits(page, f"empty chat {locale}")
        suggestions = page.locator(".suggested-question").all_inner_texts()
        placeholder = page.get_attribute("#question", "placeholder")
        assert setup_question in suggestions, suggestions
        assert placeholder.startswith(example), placeholder
        if locale == "en-US":
            assert french_in(" ".join(suggestions) + " " + placeholder) == [], (suggestions, placeholder)

        # « Arrêter » on a live turn once the Oracle writes, not while it searches (the page's own stylesheet)
        assert page.evaluate(STOP_SHOWN_WITH) == [False, True, True]

        ask(page, "Que fait la pluie dans les virages ?")
        page.evaluate("() => document.querySelectorAll('details').forEach((details) => { details.open = true; })")
        assert_fits(page, f"chat after an answer {locale}")
        diagnostics = page.inner_text(".turn .diagnostics")
        assert search_word in diagnostics and not {"index_sync", "hyde", "retrieval"} & set(diagnostics.split()), diagnostics
        # offline the answer is the booklets' passages: asked again it would be the same one
        assert page.locator(".turn .regenerate-answer").count() == 0
        assert page.locator(".turn .rate-up svg.icon").count() == 1
        assert page.evaluate(EMOJI_AS_TEXT) == []
        screenshot(page, f"screen-chat-{size}-{locale}")
        if viewport["width"] < 600:  # the narrowest phones too
            page.set_viewport_size({"width": 360, "height": 740})
            assert_fits(page, f"chat after an answer at 360 px {locale}")
            page.set_viewport_size(viewport)

        page.reload()  # the conversation, reopened
        page.evaluate("() => { document.getElementById('conversation-list').open = true; }")
        assert page.locator("#conversation-list li").count() >= 1
        assert_fits(page, f"conversation {locale}")

        citation = page.locator("a.citation").first
        citation.click()
        page.locator("#viewer-pane").wait_for(state="visible")
        page.frame_locator("#viewer-frame").locator("body[data-state=ready]").wait_for(timeout=30_000)
        frame = viewer_frame(page)
        assert on_screen(page.locator(".viewer-bar").bounding_box(), viewport)
        toolbar = page.frame_locator("#viewer-frame").locator(".viewer-toolbar")
        assert on_screen(toolbar.bounding_box(), viewport), toolbar.bounding_box()
        for control in ("#prev-page", "#next-page", "#zoom-out", "#zoom-in", "#zoom-fit"):
            assert on_screen(page.frame_locator("#viewer-frame").locator(control).bounding_box(), viewport), control
        assert_fits(page, f"chat with the viewer {locale}")
        assert_fits(frame, f"viewer {locale}")
        assert frame.evaluate(EMOJI_AS_TEXT) == []
        if viewport["width"] < 600:  # the booklet at the phone's width, not half of it
            widths = frame.evaluate("""() => [document.getElementById('viewerContainer').clientWidth,
                                              document.querySelector('.page').getBoundingClientRect().width]""")
            assert widths[0] * 0.9 <= widths[1] <= widths[0] + 1, widths
        screenshot(page, f"screen-viewer-{size}-{locale}")

        frame.focus("#zoom-in")  # the keyboard inside the booklet: Escape still closes it
        page.keyboard.press("Escape")
        page.locator("#viewer-pane").wait_for(state="hidden")
        assert page.evaluate("() => document.activeElement.classList.contains('citation')")
        citation.press("Enter")  # and from the chat itself
        page.locator("#viewer-pane").wait_for(state="visible")
        page.keyboard.press("Escape")
        page.locator("#viewer-pane").wait_for(state="hidden")
        page.context.close()

        page = open_signed_in(browser, live_daphne, alice, viewport=viewport, locale=locale)
        for url in ("/ingestion/nouvelle/", "/ingestion/", f"/ingestion/{job.pk}/"):
            page.goto(url)
            assert_fits(page, f"{url} {locale}")
            assert page.evaluate(EMOJI_AS_TEXT) == []
        screenshot(page, f"screen-ingest-{size}-{locale}")
        icon = page.request.get("/favicon.ico")
        assert icon.status == 200 and icon.headers["content-type"] == "image/x-icon" and icon.body()[:4] == b"\x00\x00\x01\x00"
        page.context.close()


def test_the_viewers_page_counter_follows_the_page_in_view(browser, live_daphne, long_names, bob):
    game, _ = long_names
    page = open_signed_in(browser, live_daphne, bob, viewport=DESKTOP)
    page.goto(f"/booklets/{game.pk}/view?page=2")
    page.locator("body[data-state=ready]").wait_for(timeout=30_000)
    assert page.inner_text("#page-number") == "2"

    # a quote near p.2's bottom, read at the top of the view, p.3 below it taking more of the
    # view: the page being read is 2 (pdf.js's own count said 3, the larger share of the view)
    scroll_until_page_top_at(page, 3, 0.4)
    page.wait_for_timeout(300)  # a scroll is counted on the next frame
    assert page.inner_text("#page-number") == "2"
    assert page.get_attribute("body", "data-current-page") == "2"

    # p.3 up near the top: 3
    scroll_until_page_top_at(page, 3, 0.1)
    page.wait_for_function("() => document.getElementById('page-number').textContent === '3'", timeout=5_000)
    assert page.get_attribute("body", "data-current-page") == "3"


def scroll_until_page_top_at(page, number, share):
    """Scroll the booklet so page `number` starts `share` of the view's height down."""
    page.evaluate("""([number, share]) => { const container = document.getElementById('viewerContainer');
        const view = container.getBoundingClientRect();
        const top = document.querySelector(`.page[data-page-number="${number}"]`).getBoundingClientRect().top;
        container.scrollTop += top - view.top - share * view.height; }""", [number, share])
