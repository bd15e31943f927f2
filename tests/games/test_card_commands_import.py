"""`import_cards`: another game's file is refused before anything is written, a card repeated in
a file is counted once, and a folder, a binary file or an embedder down end in one line."""

import json
from functools import partial

import pytest
from django.core.management import CommandError, call_command

from games.card_indexing import embed_pending_cards
from games.models import Card
from runtime import components
from tests.card_fixtures import DATA, SCRYFALL_SAMPLE
from tests.factories import GameFactory
from tests.games.test_card_commands_reindex import FakeEmbedder

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch):
    monkeypatch.setattr(components, "embedder", lambda: FakeEmbedder("fake"))


@pytest.mark.parametrize(
    "card_game, path, message",
    [
        ("mtg", DATA / "riftbound_cards.csv",
         "riftbound_cards.csv: 10 of its first 10 cards are not Magic: The Gathering cards (they look like Riftbound"),
        ("fab", SCRYFALL_SAMPLE,
         "scryfall_sample88.json: 88 of its first 88 cards are not Flesh and Blood cards (they look like Magic"),
        ("riftbound", DATA / "fab_cards.json", "fab_cards.json: 6 of its first 6 cards are not Riftbound cards"),
    ],
)  # fmt: skip
def test_a_file_of_another_game_is_refused_before_anything_is_written(card_game, path, message):
    game = GameFactory(name="Game", slug="game", card_game=card_game)
    Card.objects.create(game=game, key="kept", name="Kept", search_name="kept", type_line="Unit")

    with pytest.raises(CommandError) as error:
        call_command("import_cards", "game", str(path), "--no-index")

    assert str(error.value).startswith(message) and "\n" not in str(error.value)
    assert list(Card.objects.values_list("name", flat=True)) == ["Kept"]


def test_a_card_repeated_in_a_file_is_counted_once_and_a_reimport_changes_nothing(tmp_path, capsys):
    GameFactory(name="Flesh and Blood", slug="fab", card_game="fab")
    reprint = {"name": "Head Jab", "pitch": 1, "type": "Ninja Action - Attack", "text": "Go again"}
    path = tmp_path / "fab.json"
    path.write_text(json.dumps([{**reprint, "set_code": "WTR"}, {**reprint, "set_code": "OUT"},
                                {"name": "Sink Below", "pitch": 1, "type": "Generic Defense Reaction"}]))

    call_command("import_cards", "fab", str(path), "--no-index")
    call_command("import_cards", "fab", str(path), "--no-index")

    first, again = [line for line in capsys.readouterr().out.splitlines() if "cards read" in line]
    assert first.startswith("2 cards read: 2 created, 0 updated, 0 unchanged (1 repeated in the file: the first record")
    assert again.startswith("2 cards read: 0 created, 0 updated, 2 unchanged (1 repeated")
    assert Card.objects.get(name="Head Jab (red)").set_code == "wtr"


def test_a_folder_is_one_line(tmp_path):
    GameFactory(name="Magic", slug="magic", card_game="mtg")

    with pytest.raises(CommandError, match="is a folder, not a card file"):
        call_command("import_cards", "magic", str(tmp_path), "--no-index")


@pytest.mark.parametrize(
    "name, content",
    [("rules.pdf", b"%PDF-1.4\n%\xe9\xeb\xf1\xbf\n1 0 obj\n<< /Type /Pages >>\n" * 500),
     ("cards.csv", "name,type\nÉpée longue,Generic Weapon\n".encode("latin-1"))],
)
def test_a_file_that_is_not_utf8_text_is_one_short_line(tmp_path, name, content):
    GameFactory(name="Flesh and Blood", slug="fab", card_game="fab")
    (tmp_path / name).write_bytes(content)

    with pytest.raises(CommandError) as error:
        call_command("import_cards", "fab", str(tmp_path / name), "--no-index")

    assert str(error.value) == f"{name}: not UTF-8 text (a card file is JSON or CSV saved as UTF-8)"
    assert not Card.objects.exists()


@pytest.mark.parametrize("name, content", [("cards.csv", "name,type,pitch\n"), ("cards.csv", ""), ("cards.json", "[]")])
def test_a_file_with_no_card_fails_instead_of_reading_zero_cards(tmp_path, name, content):
    GameFactory(name="Flesh and Blood", slug="fab", card_game="fab")
    (tmp_path / name).write_text(content)

    with pytest.raises(CommandError) as error:
        call_command("import_cards", "fab", str(tmp_path / name), "--no-index")

    assert str(error.value).startswith(f"{name}: no card in it; expected our JSON list or CSV")

def test_with_the_embedder_down_the_cards_are_kept_and_the_next_run_embeds_them(monkeypatch, capsys):
    game = GameFactory(name="Riftbound", slug="riftbound", card_game="riftbound")
    # Batches of 4: the first is embedded, then the server goes down.
    monkeypatch.setattr("games.management.commands.import_cards.embed_pending_cards",
                        partial(embed_pending_cards, batch_size=4))
    monkeypatch.setattr(components, "embedder", lambda: FakeEmbedder("fake", fails_after=1))

    with pytest.raises(CommandError) as error:
        call_command("import_cards", "riftbound", str(DATA / "riftbound_cards.csv"), "--no-index")

    assert "\n" not in str(error.value) and "503 Service Unavailable" in str(error.value)
    assert "run again (it embeds only the cards without a vector)" in str(error.value)
    assert Card.objects.filter(game=game).count() == 10
    assert Card.objects.filter(game=game, dense__isnull=True).count() == 6
    monkeypatch.setattr(components, "embedder", lambda: FakeEmbedder("fake"))
    call_command("import_cards", "riftbound", str(DATA / "riftbound_cards.csv"), "--no-index")
    assert "6 cards embedded." in capsys.readouterr().out
    assert not Card.objects.filter(dense__isnull=True).exists()
