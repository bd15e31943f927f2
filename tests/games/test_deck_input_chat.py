"""A deck request in the chat for a card game whose cards are not imported yet: the answer says
so (in the reader's language), with no list and no verdict, never a deck of basic lands."""

import pytest

from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from questions.models import Question
from rag.llm.base import NoLLM
from runtime import components
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def test_a_deck_request_on_a_card_game_without_cards_says_they_are_not_imported(monkeypatch):
    monkeypatch.setattr(components, "llm_backend", lambda: NoLLM())
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")  # flagged, nothing imported
    question = create_question(game=game, text="Construis-moi une decklist complète Standard.", card_mentions=[])
    events = []

    answer_question(question.pk, lambda name, data: events.append((name, data)))

    question.refresh_from_db()
    done = events[-1][1]
    expected = ("Les cartes de ce jeu ne sont pas encore importées : l'Oracle ne peut ni construire ni vérifier "
                "une decklist tant que son catalogue est vide.")  # fmt: skip
    assert question.status == Question.Status.DONE and question.intent == "deckbuilding"
    assert question.answer == expected and done["fullAnswer"] == expected
    assert "".join(data["text"] for name, data in events if name == "token") == expected
    assert "deck" not in done and "Wastes" not in question.answer
