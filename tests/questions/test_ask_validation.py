"""POST /api/ask/stream refuses bad input with a 422 that names the field, before streaming."""

import uuid

import pytest

from games.models import Card, Game
from questions.models import Question
from tests.factories import ExtensionFactory, GameFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def game():
    return GameFactory(rules=True)


def post(client, body):
    return client.post("/api/ask/stream", body, content_type="application/json")


def failing_fields(response) -> set[str]:
    assert response.status_code == 422, response.content
    return {error["field"].split(".")[0] for error in response.json()["errors"]}


def test_unknown_game_is_refused(client, bob):
    client.force_login(bob)
    assert failing_fields(post(client, {"gameId": str(uuid.uuid4()), "question": "Combien ?"})) == {"gameId"}


def test_a_game_with_no_rules_read_yet_is_refused_saying_why(client, bob):
    client.force_login(bob)
    unread = GameFactory()  # its booklet not read yet (or its only ingestion failed)

    response = post(client, {"gameId": str(unread.pk), "question": "Combien de cartes ?"})

    assert response.status_code == 409, response.content
    assert "Aucun livret de ce jeu n'a encore été lu" in response.json()["detail"]
    assert not Question.objects.exists()


def test_a_card_game_with_its_cards_may_be_asked_before_any_booklet_is_read(client, bob):
    client.force_login(bob)
    magic = GameFactory(card_game=Game.CardGame.MTG)
    Card.objects.create(game=magic, key="llanowar-elves", name="Llanowar Elves", search_name="llanowar elves")

    response = post(client, {"gameId": str(magic.pk), "question": "Que fait Llanowar Elves ?"})

    assert response.status_code == 200, response.content[:300]  # the stream starts


def test_game_id_must_be_a_uuid(client, bob):
    client.force_login(bob)
    assert failing_fields(post(client, {"gameId": "heat", "question": "Combien ?"})) == {"gameId"}


@pytest.mark.parametrize("text", ["", "   ", "x" * 501])
def test_question_must_have_1_to_500_characters(client, bob, game, text):
    client.force_login(bob)
    assert failing_fields(post(client, {"gameId": str(game.pk), "question": text})) == {"question"}


def test_500_characters_are_accepted_as_far_as_validation_goes(client, bob, game):
    client.force_login(bob)
    other_game_extension = ExtensionFactory()
    body = {"gameId": str(game.pk), "question": "x" * 500, "extensions": [str(other_game_extension.pk)]}
    assert failing_fields(post(client, body)) == {"extensions"}  # the question itself passed


def test_history_is_at_most_five_turns(client, bob, game):
    client.force_login(bob)
    history = [{"question": f"q{i}", "answer": f"a{i}"} for i in range(6)]
    assert failing_fields(post(client, {"gameId": str(game.pk), "question": "Et ensuite ?", "history": history})) == {"history"}


def test_extensions_must_belong_to_the_game(client, bob, game):
    client.force_login(bob)
    foreign = ExtensionFactory()
    body = {"gameId": str(game.pk), "question": "Combien ?", "extensions": [str(foreign.pk)]}
    assert failing_fields(post(client, body)) == {"extensions"}
    assert not Question.objects.exists()
