"""The chat page through what players do besides asking: Back and Forward (during an answer,
after a citation), FR/EN after the first question, the keyboard on « Arrêter » and « Utile »,
a pasted question too long, refused actions (their message where they happened, gone once
they no longer hold) and a session ended in another tab."""

import re
from urllib.parse import urlparse

import pytest

from tests.e2e.conftest import SERVER_ENV, open_signed_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
REPEAT = 3
ANSWER = 'Le joueur actif pioche deux cartes [Course Folle, p.2 : "pioche deux cartes"]. Ensuite il joue. '
CONVERSATION_URL = re.compile(r"/jeux/course-folle/c/[0-9a-f-]{36}/$")
FOCUSED = "() => { const e = document.activeElement; return e ? e.className : null; }"


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    # 14 words × 3 × 0.2 s: time enough to go back and forth, or stop, while it streams
    return {**SERVER_ENV, "REPLAY_LLM_DELAY_S": "0.2", "REPLAY_LLM_REPEAT": str(REPEAT), "REPLAY_LLM_TEXT": ANSWER}


def wait_streaming(page):
    page.wait_for_function("() => document.querySelector('.turn[data-state=live] .answer')?.textContent.length > 20")


def travel(step):
    """Back or Forward, until the page they lead to has loaded (htmx reloads it on popstate)."""
    page = step.__self__
    with page.expect_event("load"):
        step()


def refuse_once(page, pattern, message):
    """The next POST to `pattern` is refused (429, the rate limit's answer) with a 1 s wait."""
    page.route(pattern, lambda route: route.fulfill(
        status=429, body=message, headers={"Content-Type": "text/plain; charset=utf-8", "Retry-After": "1"}), times=1)


def test_back_forward_language_keyboard_and_errors_keep_the_chat_working(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")

    # a pasted question over 500 characters stays whole, is not sent, and says why
    page.click("#question")
    page.keyboard.insert_text("x" * 600)
    assert page.input_value("#question") == "x" * 600
    assert page.inner_text("#ask-error") == "La question dépasse 500 caractères."
    page.click("#ask-button")
    page.fill("#question", "")
    assert page.is_hidden("#ask-error") and page.locator(".turn").count() == 0

    # a refused question: its message under the box, gone once its wait has passed
    refuse_once(page, re.compile(r".*/ask$"), "Trop de questions : réessayez dans 1 s.")
    page.fill("#question", "Combien de cartes pioche-t-on ?")
    page.click("#ask-button")
    page.wait_for_selector("#ask-error:has-text('Trop de questions')")
    page.wait_for_selector("#ask-error", state="hidden", timeout=5_000)

    # Back with the booklet open beside the chat: the page before, full width, viewer closed
    page.click("#ask-button")
    page.wait_for_selector(".turn[data-state=done]", timeout=60_000)
    page.wait_for_url(CONVERSATION_URL)
    conversation_url = page.url
    page.locator(".turn a.citation").first.click()
    page.wait_for_selector("body.viewer-open #viewer-pane:not([hidden])")
    travel(page.go_back)
    page.wait_for_url(re.compile(rf"/jeux/{game.slug}/$"))
    page.wait_for_selector("#ask-form")
    assert "viewer-open" not in page.evaluate("document.body.className") and page.is_hidden("#viewer-pane")
    assert page.locator(".turn").count() == 0
    travel(page.go_forward)
    page.wait_for_url(conversation_url)

    # Back and Forward while the next answer streams: the box works, the text is written once
    page.fill("#question", "Et au premier tour ?")
    page.keyboard.press("Enter")
    wait_streaming(page)
    travel(page.go_back)
    page.wait_for_url(re.compile(rf"/jeux/{game.slug}/$"))
    travel(page.go_forward)
    page.wait_for_url(conversation_url)
    wait_streaming(page)
    assert (ANSWER * REPEAT).startswith(page.inner_text(".turn[data-state=live] .answer"))

    # « Arrêter » by keyboard: the focus goes to the stopped turn's « Régénérer »
    page.focus(".turn[data-state=live] .stop-answer")
    page.keyboard.press("Enter")
    page.wait_for_selector(".turn:nth-child(3)[data-state=done] .stopped-note", timeout=30_000)
    page.wait_for_function(f"() => ({FOCUSED})().includes('regenerate-answer')")
    assert page.evaluate("document.activeElement.closest('.turn').id") == page.locator(".turn").nth(1).get_attribute("id")
    assert page.is_enabled("#ask-button")
    # « Utile » by keyboard: the focus stays on « Utile », now pressed
    page.focus(".turn:nth-child(3) .rate-up")
    page.keyboard.press("Enter")
    page.wait_for_selector(".turn:nth-child(3) .rate-up[aria-pressed=true]")
    page.wait_for_function(f"() => ({FOCUSED})().includes('rate-up')", timeout=2_000)  # once settled

    # a refused « Régénérer »: its message in its turn, not under the box; gone after its wait
    refuse_once(page, re.compile(r".*/regenerate$"), "Trop de questions : réessayez dans 1 s.")
    page.click(".turn:nth-child(2) .regenerate-answer")
    page.wait_for_selector(".turn:nth-child(2) .turn-error:has-text('Trop de questions')")
    assert page.is_hidden("#ask-error")
    page.wait_for_selector(".turn:nth-child(2) .turn-error", state="hidden", timeout=5_000)

    # FR → EN after the questions: the same conversation, in English
    page.click("button.lang[value=en]")
    page.wait_for_url(conversation_url)
    assert page.get_attribute("html", "lang") == "en" and page.locator(".turn").count() == 2

    # signed out in another tab: a question says so, with a link back to this conversation
    other = page.context.new_page()
    other.goto("/")
    other.click(".topnav button.link-button")
    other.wait_for_load_state()
    page.fill("#question", "Qui commence ?")
    page.click("#ask-button")
    link = page.wait_for_selector("#ask-error .signed-out a")
    assert link.get_attribute("href") == "/login/?next=" + urlparse(conversation_url).path
