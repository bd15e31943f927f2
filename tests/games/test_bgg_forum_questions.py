"""Synced forum chunks in the ask flow: a rules question finds them, a deckbuilding question
does not (forums clarify rules; they are not deck advice)."""

import pytest

from games import bgg_sync
from games.index_state import mark_changed
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from rag import sparse
from runtime import components
from tests.factories import ChunkFactory, GameFactory
from tests.games.bgg_replay import fake_bgg, private_cache  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

QUESTION = "Can I play a combat card during another player's turn?"


@pytest.fixture
def scythe_with_forum(fake_bgg):
    game = GameFactory(name="Scythe", slug="scythe", bgg_id=169786)
    text = "Combat: each player secretly chooses power and may add one combat card, then both reveal."
    rule = ChunkFactory(game=game, text=text, page_start=14, page_end=14, hierarchy_path="Combat")
    rule.dense_vector = components.embedder().embed_passages([text])[0]
    rule.sparse = sparse.document_vector(text).as_dict()
    rule.embedder = components.embedder().name
    rule.save()
    mark_changed("rules_scythe")
    client = bgg_sync.client_from_settings()
    bgg_sync.sync_game(game, client)
    client.close()
    return game


def context_of(game, text):
    question = create_question(game=game, text=text)
    events = []
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    question.refresh_from_db()
    return question, next(data for name, data in events if name == "context")


def test_a_rules_question_finds_the_forum_thread(scythe_with_forum):
    question, context = context_of(scythe_with_forum, QUESTION)

    assert question.intent == context["intent"] == "rules"
    forum = [c for c in context["chunks"] if c["is_forum"]]
    assert forum and forum[0]["page_start"] == 0
    assert any("Combat cards are only played during combat" in c["text"] for c in forum)


def test_a_deckbuilding_question_leaves_the_forum_out(scythe_with_forum):
    question, context = context_of(scythe_with_forum, "Construis-moi un deck : " + QUESTION)

    assert context["intent"] == "deckbuilding"
    assert context["chunks"], "the rulebook is still searched"
    assert not [c for c in context["chunks"] if c["is_forum"]]
    # Scythe has no card catalog: the rulebooks answer instead of a deck builder failing.
    assert question.status == "done" and question.answer


def test_the_answer_context_carries_the_bgg_metadata(scythe_with_forum):
    from rag.answer import build_user_prompt

    scythe_with_forum.refresh_from_db()
    prompt = build_user_prompt(QUESTION, [], game_name="Scythe", bgg_metadata=scythe_with_forum.bgg_metadata)

    assert "Mécaniques : Area Majority / Influence, Contracts" in prompt
    assert "Joueurs max. : 5" in prompt
    assert "Année : 2016" in prompt
