"""The ask flow called directly (questions.ask_flow.flow.answer_question): what it stores and emits,
offline (extractive), with an LLM that hits its quota, and on failure."""

from datetime import datetime, timezone

import pytest

from runtime import components
from questions.models import Question
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from rag import prompts
from rag.llm.base import ClaudeQuotaError, HealthReport
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import create_chunk_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def game_and_extension():
    game = GameFactory(name="Course Folle", slug="course-folle", bgg_metadata={"mechanics": ["Racing"]})
    extension = ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain")
    create_chunk_rows(game, extension)
    return game, extension


def run(game, extension, text):
    question = create_question(game=game, text=text, extensions=[extension])
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    question.refresh_from_db()
    return question, events


def test_offline_answer_quotes_the_booklets_and_is_persisted(game_and_extension):
    game, extension = game_and_extension
    question, events = run(game, extension, "Which tyres can a player choose before the race?")
    assert question.status == Question.Status.DONE
    assert '[Heavy Rain, p.2 : "' in question.answer
    assert question.intent == "rules"
    assert question.best_score > 0.8
    assert question.diagnostics["chunks"][0]["booklet"] == "Heavy Rain"
    assert "retrieval.search" in question.diagnostics["timings"]
    names = [name for name, _ in events]
    assert names[:2] == ["phase", "phase"] and names[-2:] == ["diagnostics", "done"]
    assert "".join(d["text"] for n, d in events if n == "token") == question.answer
    confidence = question.diagnostics["confidence"]
    assert confidence["level"] in {"high", "medium", "low"} and 0 < confidence["key_terms"] <= 1
    assert dict(events)["done"]["confidence"] == confidence["level"]


def test_only_checked_booklets_are_searched(game_and_extension):
    game, _ = game_and_extension
    question = create_question(game=game, text="Which tyres can a player choose before the race?")
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    context = next(d for n, d in events if n == "context")
    assert {c["booklet"] for c in context["chunks"]} == {"Course Folle"}


class QuotaLLM:
    name = "quota-double"
    available = True

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield "Selon "
        raise ClaudeQuotaError(datetime(2026, 11, 29, 22, 0, tzinfo=timezone.utc))

    def complete(self, system, prompt, *, model="sonnet", timeout=None):
        return ""

    def health(self):
        return HealthReport(status="ok")


def test_quota_during_the_answer_says_so_and_falls_back_to_quotes(game_and_extension, monkeypatch):
    monkeypatch.setattr(components, "llm_backend", lambda: QuotaLLM())
    game, extension = game_and_extension
    question, _ = run(game, extension, "Which tyres can a player choose before the race?")
    assert question.status == Question.Status.DONE
    assert question.answer.startswith("Selon \n\nLe quota du modèle de langage est atteint (reprise vers 23:00).")
    assert prompts.EXTRACTIVE_FALLBACK_INTRO in question.answer
    assert '[Heavy Rain, p.2 : "' in question.answer


def test_quota_without_extractive_fallback_only_explains(game_and_extension, monkeypatch, settings):
    settings.ASK_QUOTA_FALLBACK_EXTRACTIVE = False
    monkeypatch.setattr(components, "llm_backend", lambda: QuotaLLM())
    game, extension = game_and_extension
    question, _ = run(game, extension, "Which tyres can a player choose before the race?")
    assert "quota" in question.answer and "[Heavy Rain" not in question.answer


def test_a_failure_marks_the_question_error_with_a_readable_message(game_and_extension, monkeypatch):
    def broken_store():
        raise RuntimeError("index unreadable")

    monkeypatch.setattr(components, "vector_store", broken_store)
    game, extension = game_and_extension
    question, events = run(game, extension, "Combien de cartes ?")
    assert question.status == Question.Status.ERROR
    assert question.error == "L'Oracle n'a pas pu répondre à cette question. Réessayez dans un instant."
    assert "index unreadable" not in question.error  # the exception goes to the log, not to the player
    assert events[-1] == ("error", {"message": question.error, "questionId": str(question.pk)})
