"""« Arrêter »: the answer step notices the stop signal between streamed tokens; the text
streamed until then is stored, marked stopped, and `done` still ends the stream. Rules
answers, deck answers of a card game and « Phase 1 » deck answers alike. A deck answer
stopped while it is prepared (decomposition, spec, passages) starts no generation call."""

import pytest

from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from questions.ask_flow.stop import StoppableLLM, forget_stop, request_stop
from questions.models import Question
from rag.llm.base import AnswerStopped, HealthReport, LLMError
from runtime import components
from rag.deckbuilding.spec import SPEC_SYSTEM_PROMPT
from rag.synergy import DECOMPOSE_SYSTEM
from tests.card_fixtures import dominaria  # noqa: F401
from tests.questions.test_answer_service import game_and_extension  # noqa: F401
from tests.rag.test_deckbuilding_ask import ReplayedLLM
from tests.rag.test_deckbuilding_build import VALID

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


def test_a_rules_answer_stopped_before_it_is_written_starts_no_generation(game_and_extension, monkeypatch):  # noqa: F811
    streams = []

    class CountedWordsLLM(WordsLLM):
        def stream(self, *args, **kwargs):
            streams.append(1)
            return super().stream(*args, **kwargs)

    monkeypatch.setattr(components, "llm_backend", lambda: CountedWordsLLM())
    game, extension = game_and_extension
    question = create_question(game=game, text="Combien de cartes ?", extensions=[extension])

    def emit(name, data):
        if name == "context":  # pressed while the passages are shown, before the answer is written
            request_stop(question.pk)

    answer_question(question.pk, emit)
    question.refresh_from_db()
    assert streams == [] and question.stopped and question.answer == ""


class DeckLLM(ReplayedLLM):
    """Classifies every question as a deck request (the recorded answers of the deckbuilding
    flow's double) and streams a valid Standard list line by line, counting its streams."""

    name = "deck-double"

    def __init__(self):
        super().__init__([])
        self.streams = 0

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        self.streams += 1
        yield from VALID.splitlines(keepends=True)


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


class StopWhilePreparingLLM(DeckLLM):
    """The player presses « Arrêter » while the deck is prepared: during the call whose system
    prompt is `stop_during` (decomposition or spec), before any list is streamed."""

    def __init__(self, question_id, stop_during):
        super().__init__()
        self.question_id, self.stop_during, self.calls = question_id, stop_during, []

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        self.calls.append(system)
        if system == self.stop_during:
            request_stop(self.question_id)
        return super().complete(system, prompt, model=model, timeout=timeout, images=images)


@pytest.mark.slow
@pytest.mark.parametrize("stop_during", [DECOMPOSE_SYSTEM, SPEC_SYSTEM_PROMPT], ids=["decompose", "spec"])
def test_a_deck_answer_stopped_while_prepared_starts_no_generation(dominaria, monkeypatch, stop_during):  # noqa: F811
    question = create_question(game=dominaria, text="Construis-moi une decklist complète Standard avec sideboard")
    llm = StopWhilePreparingLLM(question.pk, stop_during)
    monkeypatch.setattr(components, "llm_backend", lambda: llm)

    events = ask_and_stop_after(question, 1_000)

    assert llm.streams == 0  # the paid list generation never starts, nor a retry
    assert question.status == Question.Status.DONE and question.intent == "deckbuilding" and question.stopped
    assert question.answer == "" and [n for n, _ in events if n == "token"] == []  # no offline list either
    assert events[-1][0] == "done" and "deck" not in events[-1][1]
    if stop_during == DECOMPOSE_SYSTEM:  # the spec call (the rules' fall-back did not swallow the stop) is not made
        assert SPEC_SYSTEM_PROMPT not in llm.calls


def test_a_phase1_deck_answer_stopped_before_its_stream_starts_no_generation(game_and_extension, monkeypatch):  # noqa: F811
    llm = DeckLLM()
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    game, extension = game_and_extension
    question = create_question(game=game, text="Construis-moi un deck pour Course Folle", extensions=[extension])
    events = []

    def emit(name, data):
        events.append((name, data))
        if name == "context":  # pressed while the passages are shown, before the answer is written
            request_stop(question.pk)

    answer_question(question.pk, emit)
    question.refresh_from_db()

    assert llm.streams == 0
    assert question.intent == "deckbuilding" and question.stopped and question.answer == ""
    assert [n for n, _ in events if n == "token"] == [] and events[-1][0] == "done"


class CountingLLM:
    name = "counting"
    available = True

    def __init__(self):
        self.started = 0

    def stream(self, system, prompt, **kwargs):
        self.started += 1
        yield "texte"

    def complete(self, system, prompt, **kwargs):
        self.started += 1
        return "{}"


def test_a_stoppable_backend_calls_nothing_once_stopped_and_its_stop_escapes_the_llm_fall_backs():
    inner = CountingLLM()
    llm = StoppableLLM(inner, "q-stoppable")
    request_stop("q-stoppable")
    try:
        with pytest.raises(AnswerStopped):
            next(iter(llm.stream("system", "prompt")))
        with pytest.raises(AnswerStopped):
            try:
                llm.complete("system", "prompt")
            except LLMError:  # a rag fall-back: the stop is not one of its failures
                pytest.fail("AnswerStopped caught as an LLM failure")
        assert inner.started == 0
    finally:
        forget_stop("q-stoppable")
