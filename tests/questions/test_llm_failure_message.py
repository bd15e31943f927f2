"""A failed LLM answer, as the player reads and the question stores it: the text streamed
until then, one French sentence saying the model could not answer — never the backend's own
English error — then the extractive answer. Through a real OpenAI-compatible stand-in whose
runner dies mid-answer."""

import pytest

from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from questions.models import Question
from tests.questions.test_answer_service import game_and_extension  # noqa: F401
from tests.support.chat_completions import chat_backend

pytestmark = pytest.mark.django_db


@pytest.fixture
def dying_chat(settings):
    with chat_backend(settings, ASK_QUOTA_FALLBACK_EXTRACTIVE=True) as state:
        state.mode = "error_mid_stream"  # « model runner has unexpectedly stopped » after two pieces
        yield state


def test_a_failed_llm_answer_says_so_in_french_without_the_backend_error(dying_chat, game_and_extension):  # noqa: F811
    game, extension = game_and_extension
    question = create_question(game=game, text="Which tyres can a player choose before the race?", extensions=[extension])
    events = []

    answer_question(question.pk, lambda name, data: events.append((name, data)))

    question.refresh_from_db()
    assert question.status == Question.Status.DONE
    streamed = "".join(dying_chat.answer[:2])
    assert question.answer.startswith(streamed + "\n\nLe modèle de langage n'a pas pu répondre.\n\n")
    assert "Réponse extractive" in question.answer
    assert "unexpectedly" not in question.answer and "127.0.0.1" not in question.answer
    assert "".join(d["text"] for n, d in events if n == "token") == question.answer
