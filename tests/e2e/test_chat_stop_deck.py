"""« Arrêter » on deck answers: a deck asked of a game without a card catalog (« Phase 1 »)
or of a card game streams from the LLM; the player stops it, the partial answer stays,
marked interrupted (a reload shows it the same), and an unfinished list gets no verdict
(real daphne, real Chromium, the replayed LLM)."""

import pytest

from questions.models import Question
from tests.e2e.conftest import SERVER_ENV, open_signed_in
from tests.e2e.test_deckbuilding_badge import magic_rows  # noqa: F401

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
ANSWER = "Pour un premier deck de Course Folle, gardez les cartes Boost et deux cartes Virage. " * 4


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    return {**SERVER_ENV, "REPLAY_LLM_DELAY_S": "0.25", "REPLAY_LLM_TEXT": ANSWER, "REPLAY_LLM_INTENT": "deckbuilding"}


def ask_and_stop(page, slug):
    page.goto(f"/jeux/{slug}/")
    page.fill("#question", "Construis-moi un deck pour débuter")
    page.click("#ask-button")
    page.wait_for_function("() => document.querySelector('.turn[data-state=live] .answer')?.textContent.length > 20",
                           timeout=120_000)
    page.click(".turn .stop-answer")
    page.wait_for_selector(".turn[data-state=done]", timeout=30_000)


def test_stop_ends_a_phase1_deck_answer_and_keeps_it_marked(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    ask_and_stop(page, game.slug)

    assert page.is_visible(".turn .stopped-note:has-text('Réponse interrompue')")
    stopped = Question.objects.get()
    assert stopped.intent == "deckbuilding" and stopped.stopped
    assert 0 < len(stopped.answer) < len(ANSWER) and ANSWER.startswith(stopped.answer)
    shown = page.inner_text(".turn .answer-body")
    assert shown.strip() == stopped.answer.strip()

    page.reload()
    assert page.is_visible(".turn .stopped-note:has-text('Réponse interrompue')")
    assert page.inner_text(".turn .answer-body").strip() == stopped.answer.strip()


def test_stop_ends_a_card_game_deck_answer_without_a_verdict(browser, live_daphne, magic_rows, bob):  # noqa: F811
    page = open_signed_in(browser, live_daphne, bob)
    ask_and_stop(page, magic_rows.slug)

    assert page.is_visible(".turn .stopped-note:has-text('Réponse interrompue')")
    stopped = Question.objects.get()
    assert stopped.intent == "deckbuilding" and stopped.stopped and ANSWER.startswith(stopped.answer)
    assert page.locator(".deck-badge").count() == 0 and page.locator(".deck-export").count() == 0
