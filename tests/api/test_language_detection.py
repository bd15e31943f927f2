"""An upload without `language`: the booklet's language is the one its text is written in."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games.models import Chunk, Extension, Game
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db

ENGLISH_RULES = [
    (
        "1. Setup",
        [
            "Each player takes a driver board and places their speed marker on the zero space. "
            "Shuffle the race cards and deal seven to each player.",
            "The first player is the one who drove most recently. They receive the start token.",
        ],
    ),
    (
        "2. Playing a round",
        [
            "A round has four phases: shift gears, play cards, reveal and move, then adjust the heat. "
            "Players play the phases at the same time unless told otherwise.",
        ],
    ),
]


def upload(client, path, **fields):
    pdf = SimpleUploadedFile("rules.pdf", path.read_bytes(), "application/pdf")
    return client.post("/api/games/ingest", {"pdf": pdf, **fields})


def test_an_english_booklet_uploaded_without_language_is_english(client, alice, tmp_path):
    client.force_login(alice)

    response = upload(client, rulebook_pdf(tmp_path / "heat.pdf", ENGLISH_RULES), new_game_name="Heat")

    assert response.status_code == 202
    game = Game.objects.get()
    assert game.language == "en"
    assert {c.payload["language"] for c in Chunk.objects.filter(game=game)} == {"en"}


def test_an_expansion_uploaded_without_language_gets_its_own(client, alice, tmp_path):
    client.force_login(alice)
    upload(client, rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat", language="fr")
    game = Game.objects.get()

    upload(client, rulebook_pdf(tmp_path / "rain.pdf", ENGLISH_RULES), game_id=str(game.pk), kind="extension", name="Rain")

    assert Extension.objects.get().language == "en" and Game.objects.get().language == "fr"


def test_a_declared_language_is_kept(client, alice, tmp_path):
    client.force_login(alice)
    upload(client, rulebook_pdf(tmp_path / "heat.pdf", ENGLISH_RULES), new_game_name="Heat", language="fr")
    assert Game.objects.get().language == "fr"  # declared: the job warns, the admin decides
