"""The answer stream breaks after `meta`: the page polls GET /api/ask/{id} and recovers."""

import uuid

import httpx
import pytest

from tests.e2e.conftest import SERVER_ENV, open_signed_in, screenshot
from tests.support.replay_llm import recorded_deltas

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
REPEAT = 3
FORWARDED = ("cookie", "x-csrftoken", "content-type", "accept", "origin", "referer", "user-agent")


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    # 12 deltas × 0.5 s: the answer is still being written while the page polls.
    return {**SERVER_ENV, "REPLAY_LLM_DELAY_S": "0.5", "REPLAY_LLM_REPEAT": str(REPEAT)}


def cut_after_meta(base_url):
    """A route handler that forwards the ask to the server, hangs up once `meta` arrived (the
    server must keep answering) and hands the browser a stream that ends there."""

    def handle(route):
        request = route.request
        headers = {k: v for k, v in request.all_headers().items() if k.lower() in FORWARDED}
        received = b""
        with httpx.stream("POST", base_url + "/api/ask/stream", content=request.post_data_buffer,
                          headers=headers, timeout=30) as response:
            for chunk in response.iter_bytes():
                received += chunk
                if b"event: meta" in received and b"\n\n" in received.split(b"event: meta", 1)[1]:
                    break
        meta = received.split(b"event: meta", 1)[1].split(b"\n\n", 1)[0]
        route.fulfill(status=200, headers={"Content-Type": "text/event-stream"}, body=b"event: meta" + meta + b"\n\n")

    return handle


def test_broken_stream_falls_back_to_polling_and_shows_the_persisted_answer(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.route("**/api/ask/stream", cut_after_meta(live_daphne))
    page.goto(f"/jeux/{game.slug}/")

    with page.expect_request("**/api/ask/*-*") as first_poll:
        page.fill("#question", "Combien de cartes pioche-t-on ?")
        page.click("#ask-button")
        page.wait_for_selector(".turn .phase:has-text(\"L'Oracle finalise hors-ligne…\")")
        screenshot(page, "chat-offline-polling")

    assert first_poll.value.method == "GET"
    page.wait_for_selector(".turn[data-state=done]", timeout=50_000)
    assert page.inner_text(".turn .answer-body").strip() == "".join(recorded_deltas()) * REPEAT
    assert not page.is_visible(".turn .phase")


def test_unknown_question_after_a_broken_stream_ends_in_a_clear_error(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    fake_meta = f'event: meta\ndata: {{"questionId": "{uuid.uuid4()}"}}\n\n'
    page.route("**/api/ask/stream", lambda route: route.fulfill(
        status=200, headers={"Content-Type": "text/event-stream"}, body=fake_meta))
    page.goto(f"/jeux/{game.slug}/")
    page.fill("#question", "Combien de cartes pioche-t-on ?")
    page.click("#ask-button")

    error = page.wait_for_selector(".turn .error-text[role=alert]", timeout=30_000)
    assert "n'a pas pu terminer sa réponse" in error.inner_text()
