"""The polling fallback through a server restart: a poll that fails (the server down) is made
again 3 s later; the answer then shows, or, when none of the 15 tries got through, a clear
error, and the question box asks again."""

import re

import pytest

from tests.e2e.conftest import SERVER_ENV, open_signed_in
from tests.support.replay_llm import recorded_deltas

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
REPEAT = 2
POLL = re.compile(r".*/turn\?try=\d+$")


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    return {**SERVER_ENV, "REPLAY_LLM_DELAY_S": "0.1", "REPLAY_LLM_REPEAT": str(REPEAT)}


def test_polls_that_fail_are_made_again_up_to_the_fifteenth(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.clock.install()  # the 3 s between tries, fast-forwarded
    page.route(re.compile(r".*/questions/[0-9a-f-]{36}/events$"), lambda route: route.abort())  # the stream breaks
    tries, down = [], {"first": 2}  # the server is down for the first two tries, then answers

    def server_down(route):
        tries.append(route.request.url)
        route.abort() if len(tries) <= down["first"] else route.continue_()

    page.route(POLL, server_down)
    page.goto(f"/jeux/{game.slug}/")

    page.fill("#question", "Combien de cartes pioche-t-on ?")
    page.click("#ask-button")
    page.wait_for_selector(".turn.offline")
    for _ in range(10):
        if page.locator(".turn[data-state=done]").count():
            break
        page.clock.fast_forward(3_000)
        page.wait_for_timeout(200)
    page.wait_for_selector(".turn[data-state=done]", timeout=1_000)
    assert [url.rsplit("=", 1)[1] for url in tries[:3]] == ["0", "1", "2"]
    assert page.inner_text(".turn .answer-body").strip() == "".join(recorded_deltas()) * REPEAT
    assert page.is_enabled("#ask-button")

    # the server stays down: the fifteenth failed try ends the turn in a clear error
    tries.clear()
    down["first"] = 99
    page.fill("#question", "Et au premier tour ?")
    page.click("#ask-button")
    page.wait_for_selector(".turn:nth-child(3).offline")
    for _ in range(20):
        page.clock.fast_forward(3_000)
        page.wait_for_timeout(100)
    error = page.wait_for_selector(".turn:nth-child(3)[data-state=error] .error-text[role=alert]", timeout=1_000)
    assert "pas pu terminer sa réponse" in error.inner_text()
    assert page.is_enabled("#ask-button") and page.is_hidden("#ask-error")
    page.clock.fast_forward(10_000)
    page.wait_for_timeout(200)
    assert len(tries) == 15
