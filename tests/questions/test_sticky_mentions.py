"""Cards @-mentioned in one turn stay in the conversation (issue 18): each `done` carries the
`stickyCardMentions` the chat sends back with the next question, and the next turns' prompts
show those cards in the « CARTES ÉVOQUÉES » block. Three turns through POST /api/ask/stream,
sent as the chat sends them."""

import json
import re

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from runtime import components
from questions.models import Question
from rag.cards import FRESH_BLOCK_TITLE, STICKY_BLOCK_TITLE
from rag.llm.base import NoLLM
from tests.card_fixtures import dominaria  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)  # answers are written by pool threads


class PromptRecorder:
    """A stand-in LLM (the real one is a remote service) that keeps the prompts it is given."""

    name, available = "recorder", True

    def __init__(self):
        self.prompts = []

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        return "rules"

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        self.prompts.append(prompt)
        yield "Réponse."

    def health(self):
        return None


async def _ask(user, body: dict) -> dict[str, dict]:
    client = AsyncClient()
    await client.aforce_login(user)
    response = await client.post("/api/ask/stream", body, content_type="application/json")
    assert response.status_code == 200
    text = b"".join([chunk async for chunk in response.streaming_content]).decode()
    events = {}
    for block in text.strip().split("\n\n"):
        name, data = block.split("\n", 1)
        events[name.removeprefix("event: ")] = json.loads(data.removeprefix("data: "))
    return events


def ask(user, game, question, mentions=(), sticky=()) -> dict[str, dict]:
    body = {"gameId": str(game.pk), "question": question, "cardMentions": list(mentions),
            "stickyCardMentions": list(sticky)}  # fmt: skip
    return async_to_sync(_ask)(user, body)


def sticky_block(prompt: str) -> str:
    return prompt.split(STICKY_BLOCK_TITLE, 1)[1] if STICKY_BLOCK_TITLE in prompt else ""


def test_a_card_mentioned_in_turn_one_is_still_evoked_in_turns_two_and_three(dominaria, bob, monkeypatch):
    llm = PromptRecorder()
    monkeypatch.setattr(components, "llm_backend", lambda: llm)

    first = ask(bob, dominaria, "Que fait @Llanowar Elves ?", ["Llanowar Elves"])
    assert first["done"]["stickyCardMentions"] == ["Llanowar Elves"]
    assert FRESH_BLOCK_TITLE in llm.prompts[0] and not sticky_block(llm.prompts[0])

    second = ask(bob, dominaria, "Et @Academy Drake ?", ["Academy Drake"], first["done"]["stickyCardMentions"])
    assert [c["card_name"] for c in second["context"]["stickyMentionedCards"]] == ["Llanowar Elves"]
    assert "Llanowar Elves" in sticky_block(llm.prompts[1])
    assert second["done"]["stickyCardMentions"] == ["Llanowar Elves", "Academy Drake"]

    third = ask(bob, dominaria, "Laquelle coûte le moins ?", [], second["done"]["stickyCardMentions"])
    evoked = sticky_block(llm.prompts[2])
    assert "Llanowar Elves" in evoked and "Academy Drake" in evoked
    assert third["done"]["stickyCardMentions"] == ["Llanowar Elves", "Academy Drake"]


def test_sticky_cards_are_a_fifo_of_twenty_and_eighty_while_a_deck_is_discussed(dominaria):
    earlier = [f"Carte {n}" for n in range(85)]
    rules = Question(game=dominaria, text="Et celle-ci ?", card_mentions=["Nouvelle"], sticky_card_mentions=earlier)
    assert rules.sticky_cards_after() == [*earlier[-19:], "Nouvelle"]
    deck = Question(game=dominaria, text="Et pour mon deck ?", card_mentions=["Nouvelle"], sticky_card_mentions=earlier)
    assert deck.sticky_cards_after() == [*earlier[-79:], "Nouvelle"]
    again = Question(game=dominaria, text="Et celle-ci ?", card_mentions=["Carte 82"], sticky_card_mentions=earlier[-3:])
    assert again.sticky_cards_after() == ["Carte 83", "Carte 84", "Carte 82"]  # mentioned again: moves to the end


def test_a_client_that_lost_the_stream_gets_the_sticky_cards_by_polling(client, bob, dominaria):
    """The chat falls back to polling when the stream breaks: the poll says which cards to keep."""
    question = Question.objects.create(
        game=dominaria, user=bob, text="Et @Academy Drake ?", card_mentions=["Academy Drake"],
        sticky_card_mentions=["Llanowar Elves"],
    )  # fmt: skip
    question.mark_done(answer="Oui.", intent="rules", best_score=0.9, diagnostics={})
    client.force_login(bob)
    assert client.get(f"/api/ask/{question.pk}").json()["stickyCardMentions"] == ["Llanowar Elves", "Academy Drake"]


def test_a_deck_answer_polled_or_followed_up_keeps_what_its_done_said(client, dominaria, bob, monkeypatch):
    """A deck answer's `done` gives its own bestScore (none: a list is judged by its verdict) and
    the sticky cards with the deck's own: a poller reads the same, and the next question (which
    sends no list: the server takes the conversation's) shows the deck's cards as evoked."""
    monkeypatch.setattr(components, "llm_backend", NoLLM)  # the list is built offline from the catalog
    first = ask(bob, dominaria, "Construis-moi une decklist complète Standard autour de @Llanowar Elves", ["Llanowar Elves"])
    done = first["done"]
    deck_cards = set(re.findall(r"\[\[card:([^\]]+)\]\]", done["fullAnswer"])) - {"Llanowar Elves"}
    assert "deck" in done and len(deck_cards) > 5 and deck_cards <= set(done["stickyCardMentions"])

    client.force_login(bob)
    polled = client.get(f"/api/ask/{done['questionId']}").json()
    assert (polled["bestScore"], polled["stickyCardMentions"]) == (done["bestScore"], done["stickyCardMentions"])

    llm = PromptRecorder()
    monkeypatch.setattr(components, "llm_backend", lambda: llm)
    body = {"gameId": str(dominaria.pk), "question": "Quelle carte de la liste coûte le moins ?",
            "conversationId": first["meta"]["conversationId"]}  # fmt: skip
    async_to_sync(_ask)(bob, body)
    evoked = sticky_block(llm.prompts[0]).split("\n\n", 1)[0]  # the block alone, not the history after it
    assert all(f"- {name}" in evoked for name in deck_cards)
