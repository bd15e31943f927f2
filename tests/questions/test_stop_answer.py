"""« Arrêter »: the answer step notices the stop signal between streamed tokens; the text
streamed until then is stored, marked stopped, and `done` still ends the stream."""

import pytest

from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from questions.ask_flow.stop import request_stop
from questions.models import Question
from rag.llm.base import HealthReport
from runtime import components
from tests.questions.test_answer_service import game_and_extension  # noqa: F401

pytestmark = pytest.mark.django_db


class WordsLLM:
    name = "words-double"
    available = True

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield from ["Selon ", "les ", "règles, ", "on ", "pioche ", "deux ", "cartes."]

    def complete(self, system, prompt, *, model="sonnet", timeout=None):
        return ""

    def health(self):
        return HealthReport(status="ok")


def test_a_stopped_answer_keeps_what_was_streamed(game_and_extension, monkeypatch):  # noqa: F811
    monkeypatch.setattr(components, "llm_backend", lambda: WordsLLM())
    game, extension = game_and_extension
    question = create_question(game=game, text="Combien de cartes ?", extensions=[extension])
    events = []

    def emit(name, data):
        events.append((name, data))
        if name == "token" and len([n for n, _ in events if n == "token"]) == 2:
            request_stop(question.pk)  # the player presses « Arrêter » after two words

    answer_question(question.pk, emit)

    question.refresh_from_db()
    assert question.status == Question.Status.DONE and question.stopped
    assert question.answer == "Selon les "
    assert events[-1][0] == "done" and events[-1][1]["fullAnswer"] == "Selon les "


def test_an_answer_nobody_stopped_is_whole(game_and_extension, monkeypatch):  # noqa: F811
    monkeypatch.setattr(components, "llm_backend", lambda: WordsLLM())
    game, extension = game_and_extension
    question = create_question(game=game, text="Combien de cartes ?", extensions=[extension])
    answer_question(question.pk, lambda name, data: None)
    question.refresh_from_db()
    assert question.answer == "Selon les règles, on pioche deux cartes." and not question.stopped
