"""The ask flow with an LLM and no cross-encoder: the LLM orders the fused top (rag.llm_rerank),
and the answer's prompt and the `context` event follow its order; without it, fusion's."""

import pytest

from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from questions.ask_flow.stop import request_stop
from rag.llm.base import HealthReport
from rag.llm_rerank import SYSTEM_PROMPT as RERANK_SYSTEM
from runtime import components
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import create_chunk_rows

pytestmark = pytest.mark.django_db
QUESTION = "Which tyres can a player choose before the race?"


class RerankingLLM:
    """Ranks the passage holding `first` first when asked to rerank; answers with one line."""

    name, available = "reranking-double", True

    def __init__(self, first: str):
        self.first, self.calls = first, []

    def complete(self, system, prompt, *, model="sonnet", timeout=None):
        self.calls.append((system, prompt))
        if system != RERANK_SYSTEM:
            return ""  # classification (falls back to rules) and HyDE (skipped)
        passages = [p for p in prompt.split("Passages:")[1].split("\n\n[") if p.strip()]
        best = next(p.split("]")[0] for p in passages if self.first in p)
        return best

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        self.calls.append((system, prompt))
        yield "Voir le livret."

    def health(self):
        return HealthReport(status="ok")


@pytest.fixture
def game():
    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    return game


def ask(game, llm, monkeypatch):
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    question = create_question(game=game, text=QUESTION, extensions=list(game.extensions.all()))
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    question.refresh_from_db()
    return question, dict(events)["context"]["chunks"]


def test_the_llm_reorders_the_first_passages_and_the_answer_follows(game, monkeypatch, settings):
    settings.RERANK_URL = ""
    llm = RerankingLLM("Weather tiles")

    question, chunks = ask(game, llm, monkeypatch)

    assert (chunks[0]["booklet"], chunks[0]["page_start"]) == ("Heavy Rain", 1)
    assert question.diagnostics["reranked"] is True
    rerank_prompt = next(p for s, p in llm.calls if s == RERANK_SYSTEM)
    assert QUESTION in rerank_prompt
    answer_prompt = llm.calls[-1][1]
    assert answer_prompt.index("Weather tiles") < answer_prompt.index("Tyres")


def test_without_the_llm_rerank_the_fused_order_stays(game, monkeypatch, settings):
    settings.RERANK_URL, settings.ASK_LLM_RERANK = "", False
    llm = RerankingLLM("Weather tiles")

    question, chunks = ask(game, llm, monkeypatch)

    assert (chunks[0]["booklet"], chunks[0]["page_start"]) == ("Heavy Rain", 2)  # « Tyres »
    assert question.diagnostics["reranked"] is False
    assert not any(s == RERANK_SYSTEM for s, _ in llm.calls)


class StoppedDuringHyde(RerankingLLM):
    """The player presses « Arrêter » while the HyDE passage is being written."""

    question_id = None

    def complete(self, system, prompt, *, model="sonnet", timeout=None):
        if "Passage du livret" in prompt:
            request_stop(self.question_id)
        return super().complete(system, prompt, model=model, timeout=timeout)


def test_a_stop_pressed_before_the_rerank_starts_no_rerank_call(game, monkeypatch, settings):
    settings.RERANK_URL = ""
    llm = StoppedDuringHyde("Weather tiles")
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    question = create_question(game=game, text=QUESTION, extensions=list(game.extensions.all()))
    llm.question_id = question.pk

    answer_question(question.pk, lambda name, data: None)

    question.refresh_from_db()
    assert question.stopped and not any(s == RERANK_SYSTEM for s, _ in llm.calls)
