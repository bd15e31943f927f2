"""« Arrêter » is offered as soon as the Oracle writes, while the model is still silent before
its first word (it reads a page image, the network hangs), and stops the answer from there
(real daphne, real Chromium, a replayed LLM slow to say its first word)."""

import pytest

from questions.models import Question
from tests.e2e.conftest import SERVER_ENV, open_signed_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    return {**SERVER_ENV, "REPLAY_LLM_DELAY_S": "20"}  # 20 s of silence before each word


def test_stop_is_offered_before_the_first_word_and_stops_the_silent_model(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")
    page.fill("#question", "Combien de cartes pioche-t-on ?")
    page.click("#ask-button")
    page.locator(".turn .phase", has_text="L'Oracle rédige sa réponse").wait_for(timeout=60_000)

    assert page.inner_text(".turn .answer") == ""  # the model has not said a word yet
    assert page.is_visible(".turn .stop-answer")
    page.click(".turn .stop-answer")
    page.wait_for_selector(".turn[data-state=done]", timeout=15_000)

    assert page.is_visible(".turn .stopped-note:has-text('Réponse interrompue')")
    assert Question.objects.get().stopped
