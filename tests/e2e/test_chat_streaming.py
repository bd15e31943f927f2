"""A player asks in the browser and watches the answer arrive token by token."""

import json

import pytest

from tests.e2e.conftest import SERVER_ENV, open_signed_in, screenshot
from tests.support.replay_llm import recorded_deltas

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
REPEAT = 2


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    return {**SERVER_ENV, "REPLAY_LLM_DELAY_S": "0.4", "REPLAY_LLM_REPEAT": str(REPEAT)}


def ask(page, question):
    page.fill("#question", question)
    with page.expect_request("**/api/ask/stream") as request:
        page.click("#ask-button")
    return json.loads(request.value.post_data)


def test_tokens_appear_before_done_then_the_answer_is_rendered(browser, live_daphne, course_folle, bob):
    game, extension = course_folle
    full_answer = "".join(recorded_deltas()) * REPEAT
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/?ext={extension.pk}")
    question = "Combien de cartes pioche le joueur actif ?"
    page.fill("#question", question)
    assert page.inner_text("#char-counter") == f"{len(question)}/500"

    sent = ask(page, question)

    assert sent["gameId"] == str(game.pk) and sent["extensions"] == [str(extension.pk)] and sent["history"] == []
    page.wait_for_selector(".turn .phase:not([hidden])")
    partial = page.wait_for_function(
        """() => { const turn = document.querySelector('.turn');
                   const text = turn.querySelector('.answer').textContent;
                   return !turn.dataset.state && text.length > 0 ? text : false; }"""
    ).json_value()
    assert 0 < len(partial) < len(full_answer) and full_answer.startswith(partial)
    screenshot(page, "chat-streaming")
    page.wait_for_selector(".turn[data-state=done]", timeout=30_000)
    assert page.inner_text(".turn .answer-body").strip() == full_answer
    assert page.locator(".turn .confidence").count() == 1
    page.click(".turn .diagnostics summary")
    assert "Passages retrouvés" in page.inner_text(".turn .diagnostics")


def test_history_goes_back_with_the_next_question_until_a_new_conversation(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")
    ask(page, "Combien de cartes pioche-t-on ?")
    page.wait_for_selector(".turn[data-state=done]", timeout=30_000)

    second = ask(page, "Et au premier tour ?")
    page.wait_for_selector(".turn:nth-child(3)[data-state=done]", timeout=30_000)
    page.click("#new-conversation")
    third = ask(page, "Qui gagne la partie ?")

    assert [turn["question"] for turn in second["history"]] == ["Combien de cartes pioche-t-on ?"]
    assert second["history"][0]["answer"].startswith("Selon les règles")
    assert third["history"] == []
    assert page.locator(".turn").count() == 1
