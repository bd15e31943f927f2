"""Cards in the ask flow (no LLM): a synergy question brings `[CARD]` hits under the question's
color and format filters; a meta question brings the tournament decklists of its format; an
@-mentioned card is resolved and shown to the answerer."""

import pytest

from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from tests.card_fixtures import dominaria  # noqa: F401

pytestmark = pytest.mark.django_db


def ask(game, text, mentions=()):
    question = create_question(game=game, text=text, card_mentions=list(mentions))
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    return next(d for n, d in events if n == "context")


def test_synergy_question_gets_cards_of_its_colors_and_format(dominaria):
    context = ask(dominaria, "Quelles cartes vertes vont bien avec les saprolings en Standard ?")
    assert context["intent"] == "synergy"
    cards = [c for c in context["chunks"] if c["kind"] == "cards"]
    assert len(cards) >= 5
    assert sum("Saproling" in c["text"] for c in cards) >= 3


def test_meta_question_gets_tournament_decklists_of_the_asked_format(dominaria):
    context = ask(dominaria, "Quel est le deck le plus joué en tournoi Modern ?")
    assert context["intent"] == "meta"
    metas = [c for c in context["chunks"] if c["kind"] == "meta"]
    assert metas and all("modern" in c["text"].splitlines()[0].lower() for c in metas)
    assert "Sideboard" in metas[0]["text"]


def test_mentioned_card_is_resolved_by_its_french_name(dominaria):
    context = ask(dominaria, "Que fait @Drakôn de l'Académie si je paie le kicker ?", ["Drakôn de l'Académie"])
    assert [c["card_name"] for c in context["mentionedCards"]] == ["Academy Drake"]
    assert context["mentionedCards"][0]["name"] == "Academy Drake"


class AnsweringLLM:
    """A replayed LLM answer naming cards in plain text (intent: synergy)."""

    name, available = "replay", True

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        return "synergy"

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield "Avec Saproling Migration, jouez Sporecrown Thallid et les Elfes de Llanowar."

    def health(self):
        return None


def test_card_names_in_an_llm_answer_are_wrapped_for_the_page(dominaria, monkeypatch):
    from questions.models import Question
    from runtime import components

    monkeypatch.setattr(components, "llm_backend", lambda: AnsweringLLM())
    question = create_question(game=dominaria, text="Quelles synergies avec @Llanowar Elves ?", card_mentions=["Llanowar Elves"])
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    answer = Question.objects.get(pk=question.pk).answer
    assert "[[card:Saproling Migration]]" in answer and "[[card:Sporecrown Thallid]]" in answer
    assert "les [[card:Llanowar Elves]]." in answer  # French name, canonical English card
    assert events[-1][1]["fullAnswer"] == answer
