"""« Arrêter »: the answer step notices the stop signal between streamed tokens; the text
streamed until then is stored, marked stopped, and `done` still ends the stream. Rules
answers, deck answers of a card game and « Phase 1 » deck answers alike."""

import pytest

from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from questions.ask_flow.stop import request_stop
from questions.models import Question
from rag.llm.base import HealthReport
from runtime import components
from rag.deckbuilding.spec import SPEC_SYSTEM_PROMPT
from rag.synergy import DECOMPOSE_SYSTEM
from tests.card_fixtures import card_embedder, dominaria  # noqa: F401
from tests.questions.test_answer_service import game_and_extension  # noqa: F401
from tests.rag.test_deckbuilding_build import SPEC, VALID

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


class DeckLLM:
    """Classifies every question as a deck request and streams a valid Standard list line by line."""

    name = "deck-double"
    available = True

    def __init__(self):
        self.streams = 0

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        self.streams += 1
        yield from VALID.splitlines(keepends=True)

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        if system == SPEC_SYSTEM_PROMPT:
            return SPEC
        if system == DECOMPOSE_SYSTEM:
            return '{"colors": ["G", "U"], "format": "standard", "types": [], "themes": []}'
        return "deckbuilding"

    def health(self):
        return HealthReport(status="ok")


def ask_and_stop_after(question, tokens: int) -> list:
    events = []

    def emit(name, data):
        events.append((name, data))
        if name == "token" and len([n for n, _ in events if n == "token"]) == tokens:
            request_stop(question.pk)

    answer_question(question.pk, emit)
    question.refresh_from_db()
    return events


@pytest.mark.slow
def test_a_stopped_deck_answer_keeps_the_lines_streamed_and_builds_no_other_list(dominaria, monkeypatch):  # noqa: F811
    llm = DeckLLM()
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    question = create_question(game=dominaria, text="Construis-moi une decklist complète Standard avec sideboard")

    events = ask_and_stop_after(question, 3)

    first_lines = "".join(VALID.splitlines(keepends=True)[:3])
    assert question.status == Question.Status.DONE and question.intent == "deckbuilding" and question.stopped
    assert question.answer == first_lines
    name, done = events[-1]
    assert name == "done" and done["fullAnswer"] == first_lines
    assert "deck" not in done and "deck" not in question.diagnostics  # no verdict for an unfinished list
    assert llm.streams == 1  # no retry, no offline list after the stop


def test_a_stopped_phase1_deck_answer_keeps_what_was_streamed(game_and_extension, monkeypatch):  # noqa: F811
    llm = DeckLLM()
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    game, extension = game_and_extension
    question = create_question(game=game, text="Construis-moi un deck pour Course Folle", extensions=[extension])

    events = ask_and_stop_after(question, 2)

    first_lines = "".join(VALID.splitlines(keepends=True)[:2])
    assert question.intent == "deckbuilding" and question.stopped and question.answer == first_lines
    assert events[-1] == ("done", events[-1][1]) and events[-1][1]["fullAnswer"] == first_lines
    assert "n'a pas de catalogue" not in question.answer  # no offline answer after the stop


def test_a_phase1_deck_answer_nobody_stopped_is_whole(game_and_extension, monkeypatch):  # noqa: F811
    monkeypatch.setattr(components, "llm_backend", lambda: DeckLLM())
    game, extension = game_and_extension
    question = create_question(game=game, text="Construis-moi un deck pour Course Folle", extensions=[extension])
    answer_question(question.pk, lambda name, data: None)
    question.refresh_from_db()
    assert question.answer == VALID and not question.stopped
