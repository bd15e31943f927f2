"""A follow-up in the ask flow with an LLM: searched and quoted for the LLM's standalone
question (rag.followup.standalone_question), or for the offline text when the rewrite fails."""

import pytest

from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from rag.followup import REWRITE_SYSTEM_PROMPT
from rag.llm.base import HealthReport, LLMTimeout
from rag.llm_rerank import SYSTEM_PROMPT as RERANK_SYSTEM
from runtime import components
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import create_chunk_rows

pytestmark = pytest.mark.django_db
HISTORY = [{"question": "Which tyres can a player choose before the race?", "answer": "Rain or slick tyres."}]
REWRITTEN = "What happens when you exceed the speed limit in a wet corner?"


class FollowUpLLM:
    name, available = "follow-up-double", True

    def __init__(self, rewrite_error=None):
        self.rewrite_error, self.rewrite_prompts, self.rerank_prompts = rewrite_error, [], []

    def complete(self, system, prompt, *, model="sonnet", timeout=None):
        if system == RERANK_SYSTEM:
            self.rerank_prompts.append(prompt)
            return "1"  # keeps the fused order
        if system != REWRITE_SYSTEM_PROMPT:
            return ""  # classification (rules) and HyDE (skipped)
        self.rewrite_prompts.append(prompt)
        if self.rewrite_error:
            raise self.rewrite_error
        return REWRITTEN

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield "Voir le livret."

    def health(self):
        return HealthReport(status="ok")


def ask(llm, monkeypatch, settings, rerank=False):
    settings.RERANK_URL, settings.ASK_LLM_RERANK = "", rerank
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    game = GameFactory(name="Course Folle", slug="course-folle")
    extension = ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain")
    create_chunk_rows(game, extension)
    question = create_question(game=game, text="And in the rain?", extensions=[extension], history=HISTORY)
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    question.refresh_from_db()
    return question, dict(events)["context"]["chunks"]


def test_a_follow_up_is_searched_as_the_llm_rewrote_it(monkeypatch, settings):
    llm = FollowUpLLM()

    question, chunks = ask(llm, monkeypatch, settings)

    assert HISTORY[0]["question"] in llm.rewrite_prompts[0]
    assert question.diagnostics["followUpOf"] == REWRITTEN and question.diagnostics["followUpRewritten"]
    assert (chunks[0]["booklet"], chunks[0]["page_start"]) == ("Heavy Rain", 3)  # « Overheating in the rain »


def test_a_failed_rewrite_searches_the_offline_follow_up(monkeypatch, settings):
    question, chunks = ask(FollowUpLLM(rewrite_error=LLMTimeout("slow")), monkeypatch, settings)

    assert question.diagnostics["followUpOf"] == "Which tyres can a player choose before the race? And in the rain?"
    assert question.diagnostics["followUpRewritten"] is False
    assert (chunks[0]["booklet"], chunks[0]["page_start"]) == ("Heavy Rain", 2)  # « Tyres »


def test_the_llm_rerank_reads_the_passages_for_the_standalone_question(monkeypatch, settings):
    llm = FollowUpLLM()

    ask(llm, monkeypatch, settings, rerank=True)

    assert f"Question: {REWRITTEN}" in llm.rerank_prompts[0]  # not « And in the rain? »
