"""A player asks in the browser: the question form posts through htmx, the answer streams in
over the htmx SSE extension (server-rendered partials, no fetch() of /api/ask/stream), then the
final answer shows its citation and confidence. The conversation lasts: a reload keeps it, the
list reopens it, « Nouvelle conversation » starts another; « Arrêter » keeps a partial answer;
👍/👎 and a comment are stored."""

import re

import pytest

from questions.models import Conversation, Question
from tests.e2e.conftest import SERVER_ENV, open_signed_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
REPEAT = 3
ANSWER = 'Le joueur actif pioche deux cartes [Course Folle, p.2 : "pioche deux cartes"]. Ensuite il joue. '
CONVERSATION_URL = re.compile(r"/jeux/course-folle/c/[0-9a-f-]{36}/$")
DOCS_IMG = __import__("pathlib").Path(__file__).resolve().parents[2] / "docs" / "img"


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    # 14 words × 3 × 0.25 s: about ten seconds of streaming, time enough to watch or stop it
    return {**SERVER_ENV, "REPLAY_LLM_DELAY_S": "0.25", "REPLAY_LLM_REPEAT": str(REPEAT), "REPLAY_LLM_TEXT": ANSWER}


def record_requests(page) -> list[str]:
    urls = []
    page.on("request", lambda request: urls.append(f"{request.method} {request.url}"))
    return urls


def ask(page, question):
    done = page.locator(".turn[data-state=done]").count()
    page.fill("#question", question)
    page.click("#ask-button")
    page.locator(".turn[data-state=done]").nth(done).wait_for(timeout=60_000)


def docs_screenshot(page, name):
    DOCS_IMG.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS_IMG / f"{name}.png"))


def test_the_answer_streams_through_htmx_sse_then_shows_its_citation(browser, live_daphne, course_folle, bob):
    game, extension = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    requests = record_requests(page)
    page.goto(f"/jeux/{game.slug}/?ext={extension.pk}")
    question = "Combien de cartes pioche le joueur actif ?"
    page.fill("#question", question)
    assert page.inner_text("#char-counter") == f"{len(question)}/500"

    page.click("#ask-button")

    live = page.locator(".turn[data-state=live][sse-connect]")
    live.wait_for()
    page.locator(".turn .phase", has_text="L'Oracle").wait_for()
    partial = page.wait_for_function(
        """() => { const turn = document.querySelector('.turn[data-state=live]');
                   const text = turn && turn.querySelector('.answer').textContent;
                   return text && text.length > 0 ? text : false; }"""
    ).json_value()
    full = ANSWER * REPEAT
    assert 0 < len(partial) < len(full) and full.startswith(partial)
    assert page.is_disabled("#ask-button")  # one answer at a time
    screenshot(page, "chat-streaming")
    docs_screenshot(page, "chat-streaming")

    page.wait_for_selector(".turn[data-state=done]", timeout=60_000)
    assert page.inner_text(".turn .answer-body").strip() == full.strip().replace(
        '[Course Folle, p.2 : "pioche deux cartes"]', 'Course Folle, p.2 pioche deux cartes')
    assert page.locator(".turn a.citation", has_text="Course Folle, p.2").count() == REPEAT
    assert page.locator(".turn .confidence").count() == 1
    docs_screenshot(page, "chat-desktop")
    page.click(".turn .diagnostics summary")
    assert "Passages retrouvés" in page.inner_text(".turn .diagnostics")
    assert re.search(r"POST .*/jeux/course-folle/ask$", "\n".join(requests), re.M)
    assert any(re.search(r"GET .*/questions/[0-9a-f-]{36}/events$", url) for url in requests)
    assert not any("/api/ask/stream" in url for url in requests)  # no fetch() stream any more
    assert CONVERSATION_URL.search(page.url)  # the conversation's own URL, pushed
    stored = Question.objects.get()
    assert list(stored.extensions.all()) == [extension] and stored.conversation.title == question


def test_the_conversation_lasts_reopens_and_a_new_one_starts(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")
    suggestion = page.locator(".suggested-question").first  # from the game's own headings
    suggestion.click()
    assert page.input_value("#question") == suggestion.get_attribute("data-question") != ""
    ask(page, "Combien de cartes pioche-t-on ?")
    ask(page, "Et au premier tour ?")
    conversation_url = page.url
    assert CONVERSATION_URL.search(conversation_url)
    second = Question.objects.get(text="Et au premier tour ?")
    assert [turn["question"] for turn in second.history] == ["Combien de cartes pioche-t-on ?"]
    assert page.inner_text("#history-note") == "↺ 2/5 : l'Oracle relit vos 2 derniers échanges"

    page.reload()
    assert page.locator(".turn[data-state=done]").count() == 2
    assert page.locator(".turn .question-text").nth(1).inner_text() == "Et au premier tour ?"
    assert page.locator(".turn a.citation").count() == 2 * REPEAT

    page.click("#new-conversation")
    page.wait_for_url(re.compile(rf"/jeux/{game.slug}/$"))
    assert page.locator(".turn").count() == 0
    ask(page, "Qui gagne la partie ?")
    assert page.url != conversation_url and Conversation.objects.count() == 2
    assert Question.objects.get(text="Qui gagne la partie ?").history == []

    page.click("#conversation-list summary")
    page.click("#conversation-list a:has-text('Combien de cartes pioche-t-on ?')")
    page.wait_for_url(conversation_url)
    assert page.locator(".turn .question-text").all_inner_texts() == ["Combien de cartes pioche-t-on ?", "Et au premier tour ?"]


def test_stop_keeps_the_partial_answer_and_feedback_is_stored(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")
    page.fill("#question", "Combien de cartes pioche-t-on ?")
    page.click("#ask-button")
    page.wait_for_function("() => document.querySelector('.turn[data-state=live] .answer')?.textContent.length > 20")

    page.click(".turn .stop-answer")

    page.wait_for_selector(".turn[data-state=done]", timeout=30_000)
    assert page.is_visible(".turn .stopped-note:has-text('Réponse interrompue')")
    stopped = Question.objects.get()
    assert stopped.stopped and 0 < len(stopped.answer) < len(ANSWER * REPEAT)

    page.click(".turn .rate-down")
    page.wait_for_selector(".turn .feedback .rate-down[aria-pressed=true]")
    page.click(".turn .feedback-comment summary")
    page.fill(".turn .feedback textarea", "Il manque la règle du premier tour.")
    # the 👎 already brought a « Merci »: wait for the comment's own answer, not for that
    with page.expect_response(lambda response: response.request.method == "POST" and "/feedback" in response.url):
        page.click(".turn .send-comment")
    page.wait_for_selector(".turn .feedback-thanks")
    stopped.refresh_from_db()
    assert stopped.rating == -1 and stopped.feedback_comment == "Il manque la règle du premier tour."

    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click(".turn .copy-answer")
    page.wait_for_selector(".turn .copy-answer:has-text('Copié !')")
    assert page.evaluate("navigator.clipboard.readText()") == page.inner_text(".turn .answer-body")

    page.click(".turn .regenerate-answer")
    page.wait_for_selector(".turn[data-state=done]:not(:has(.stopped-note))", timeout=60_000)
    again = Question.objects.get(replaces=stopped)
    assert again.text == stopped.text and not again.stopped
    assert page.locator(".turn").count() == 1


def test_the_chat_on_a_phone(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob, viewport={"width": 390, "height": 844})
    page.goto(f"/jeux/{game.slug}/")
    ask(page, "Combien de cartes pioche-t-on ?")
    # the page follows the answer to its end: the sticky question box does not hide it
    page.wait_for_function("""() => {
        const actions = document.querySelector('.turn .turn-actions').getBoundingClientRect();
        return actions.bottom <= document.getElementById('ask-form').getBoundingClientRect().top + 1; }""",
                           timeout=5_000)
    docs_screenshot(page, "chat-phone")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_reload_while_the_answer_streams_picks_it_up_where_it_was(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")
    page.fill("#question", "Combien de cartes pioche-t-on ?")
    page.click("#ask-button")
    page.wait_for_function("() => document.querySelector('.turn[data-state=live] .answer')?.textContent.length > 30")
    page.wait_for_url(CONVERSATION_URL)

    page.reload()

    page.locator(".turn[data-state=live][sse-connect]").wait_for()
    page.wait_for_function(  # the text written before the reload comes back first
        "() => document.querySelector('.turn[data-state=live] .answer')?.textContent.startsWith('Le joueur actif pioche')")
    page.wait_for_selector(".turn[data-state=done]", timeout=60_000)
    assert page.locator(".turn a.citation", has_text="Course Folle, p.2").count() == REPEAT
    assert Question.objects.count() == 1
