"""Issue 19, defect 9: unbounded fields. 80 mentions of 60,000 characters were stored in one
question; a BGG id of 2^70 or -5 was a 500; a 5,000-character game name and a 300-character
language were accepted (the models hold 200 and 8). Every field is bounded before the
database, with a 4xx that names it."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games.models import Game
from ingest.models import IngestJob
from questions.models import Question
from tests.factories import GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf


def ask(client, game, **fields):
    payload = {"gameId": str(game.pk), "question": "Combien de cartes pioche-t-on ?", **fields}
    return client.post("/api/ask/stream", json.dumps(payload), content_type="application/json")


def failing_fields(response) -> set[str]:
    return {error["field"].split(".")[0] for error in response.json()["errors"]}


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["stickyCardMentions", "cardMentions"])
def test_card_mentions_are_bounded_in_length(client, bob, field):
    client.force_login(bob)
    game = GameFactory(name="Magic")

    response = ask(client, game, **{field: ["Llanowar Elves" + "x" * 5000] * 40})

    assert response.status_code == 422
    assert field in json.dumps(response.json())
    assert not Question.objects.exists()


def upload(client, tmp_path, **fields):
    pdf = SimpleUploadedFile("r.pdf", rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES).read_bytes(), "application/pdf")
    return client.post("/api/games/ingest", {"pdf": pdf, **fields})


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields, named",
    [
        ({"new_game_name": "Heat", "bgg_id": str(2**70)}, "bgg_id"),
        ({"new_game_name": "Heat", "bgg_id": "-5"}, "bgg_id"),
        ({"new_game_name": "H" * 5000}, "new_game_name"),
        ({"new_game_name": "Heat", "language": "f" * 300}, "language"),
        ({"new_game_name": "Heat", "kind": "extension", "name": "E" * 201}, "name"),
    ],
    ids=["bgg-2^70", "bgg-negative", "game-name-5000", "language-300", "booklet-name-201"],
)
def test_upload_fields_are_bounded_before_the_database(client, alice, tmp_path, fields, named):
    client.force_login(alice)

    response = upload(client, tmp_path, **fields)

    assert response.status_code == 422, response.content[:300]
    assert named in json.dumps(response.json())
    assert not Game.objects.exists() and not IngestJob.objects.exists()


@pytest.mark.django_db
def test_upload_within_bounds_is_accepted(client, alice, tmp_path):
    client.force_login(alice)

    response = upload(client, tmp_path, new_game_name="H" * 200, language="en", bgg_id=str(2**31 - 1))

    assert response.status_code == 202, response.content[:300]
    assert Game.objects.get().bgg_id == 2**31 - 1
