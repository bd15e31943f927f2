"""The deckbuilding mode inside the ask flow (questions.ask_flow.flow.answer_question): a Magic
Standard request with two @-anchors gives a 60+15 list that passes validation and holds both
anchors, without an LLM and with a replayed one whose first list is invalid."""

import threading
import time

import pytest

from questions.ask_flow.answering import CHECK_EVERY_S
from questions.ask_flow.stop import request_stop
from questions.models import Question
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from rag.deckbuilding.spec import SPEC_SYSTEM_PROMPT
from rag.deckbuilding.wording import text
from rag.llm.base import ClaudeQuotaError, HealthReport, NoLLM
from rag.synergy import DECOMPOSE_SYSTEM
from runtime import components
from tests.card_fixtures import dominaria  # noqa: F401
from tests.rag.test_deckbuilding_build import HALF_LIST, RESET, SPEC, TOO_SHORT, VALID

RETRY_SEPARATOR = text("retry")  # the line between two attempts, for a French reader

QUESTION = "Construis-moi une decklist complète Standard avec sideboard autour de @Llanowar Elves et @Academy Drake"
ANCHORS = ["Llanowar Elves", "Academy Drake"]


class ReplayedLLM:
    """Recorded answers per call: intent, decomposition and spec (`complete`), deck lists (`stream`)."""

    name, available = "replay", True

    def __init__(self, decks):
        self.decks = list(decks)

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        if system == SPEC_SYSTEM_PROMPT:
            return SPEC
        if system == DECOMPOSE_SYSTEM:
            return '{"colors": ["G", "U"], "format": "standard", "types": [], "themes": []}'
        return "deckbuilding"

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield from self.decks.pop(0)

    def health(self):
        return HealthReport(status="ok")


def ask(game):
    question = create_question(game=game, text=QUESTION, card_mentions=ANCHORS)
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    question.refresh_from_db()
    return question, events


@pytest.mark.slow
@pytest.mark.parametrize("llm", [NoLLM(), ReplayedLLM([TOO_SHORT, VALID])], ids=["offline", "replayed-llm"])
def test_standard_request_with_two_anchors_returns_a_valid_60_plus_15(dominaria, monkeypatch, llm):
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    question, events = ask(dominaria)
    assert question.status == Question.Status.DONE and question.intent == "deckbuilding"
    done = events[-1][1]
    assert events[-1][0] == "done" and done["fullAnswer"] == question.answer
    verdict = done["deck"]["validation"]
    assert verdict["valid"], verdict["issues"]
    assert verdict["totals"] == {"main": 60, "sideboard": 15}
    for name in ANCHORS:
        assert f"[[card:{name}]]" in question.answer
    assert done["deck"]["exports"]["arena"].startswith("Deck\n")
    assert question.diagnostics["deck"]["validation"]["valid"]
    streamed = "".join(d["text"] for n, d in events if n == "token")
    assert (RETRY_SEPARATOR in streamed) == isinstance(llm, ReplayedLLM)


class QuotaMidList(ReplayedLLM):
    """Streams half a list, then the subscription's quota runs out."""

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield HALF_LIST
        raise ClaudeQuotaError(RESET)


def test_a_quota_reached_mid_list_is_stored_as_the_player_saw_it(dominaria, monkeypatch, settings):
    settings.TIME_ZONE = "America/Bogota"
    monkeypatch.setattr(components, "llm_backend", lambda: QuotaMidList([]))

    question, events = ask(dominaria)

    assert question.status == Question.Status.DONE and question.intent == "deckbuilding"
    streamed = "".join(d["text"] for n, d in events if n == "token")
    assert streamed == question.answer  # a reload shows the same turn
    assert question.answer.startswith(
        f"{HALF_LIST}\n\n---\nLe quota du modèle de langage est atteint (reprise vers 17:00).\n\n## Deck Standard"
    )
    name, done = events[-1]
    assert name == "done" and done["fullAnswer"] == question.answer and done["deck"]["builder"] == "offline"


class StallsMidList(ReplayedLLM):
    """Streams half a list, then goes silent (a network that hangs)."""

    def __init__(self):
        super().__init__([])
        self.release = threading.Event()

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield HALF_LIST
        self.release.wait(20)
        yield "1 Island\n"


@pytest.mark.slow
def test_a_stop_while_the_deck_model_is_silent_ends_the_answer_at_once(dominaria, monkeypatch):
    llm = StallsMidList()
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    question = create_question(game=dominaria, text=QUESTION, card_mentions=ANCHORS)
    pressed = {}

    def emit(name, data):
        if name == "token" and "at" not in pressed:  # the model then goes silent
            request_stop(question.pk)
            pressed["at"] = time.monotonic()

    try:
        answer_question(question.pk, emit)
        took = time.monotonic() - pressed["at"]
    finally:
        llm.release.set()

    question.refresh_from_db()
    assert took < CHECK_EVERY_S + 1.0, f"the stop took {took:.1f} s (the model is silent 20 s)"
    assert question.status == Question.Status.DONE and question.stopped
