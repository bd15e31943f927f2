"""A bad row in a card file is left out and reported, the other cards are imported; a file
that fails half-way still lets the cards already written reach the look-ups and the index."""

import json
from functools import partial

import pytest
from django.core.management import CommandError, call_command

from games.card_import import CardFileError, import_cards
from games.card_lookup import search_cards
from games.models import Card
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

FAB_CSV = """name,name_fr,type,pitch,class,text,set_code
Head Jab,Coup de tête,Ninja Action - Attack,1,Ninja,Go again,WTR
Sink Below,Sombrer,Generic Defense Reaction
Whelming Gustwave,,Generic Action,3,Generic,Draw a card,WTR
"""


def test_a_csv_row_shorter_than_its_header_is_reported_and_the_others_imported(tmp_path, capsys):
    GameFactory(name="Flesh and Blood", slug="fab", card_game="fab")
    path = tmp_path / "fab.csv"
    path.write_text(FAB_CSV)

    call_command("import_cards", "fab", str(path), "--no-embed")

    assert set(Card.objects.values_list("name", flat=True)) == {"Head Jab (red)", "Whelming Gustwave (blue)"}
    output = capsys.readouterr()
    assert "2 cards read: 2 created" in output.out
    assert "fab.csv, row 2: not as many cells as the header has columns" in output.err


def test_a_json_card_without_a_name_is_reported_and_the_others_imported(tmp_path, capsys):
    GameFactory(name="Riftbound", slug="riftbound", card_game="riftbound")
    path = tmp_path / "riftbound.json"
    cards = [{"name": None, "type": "Unit"}, {"name": "Jinx - Loose Cannon", "type": "Legend", "text": None}]
    path.write_text(json.dumps(cards))

    call_command("import_cards", "riftbound", str(path), "--no-embed")

    jinx = Card.objects.get()
    assert jinx.name == "Jinx - Loose Cannon" and jinx.text == ""
    assert "riftbound.json, card 1: no name" in capsys.readouterr().err


def test_cards_written_before_a_file_fails_reach_the_look_ups(tmp_path):
    game = GameFactory(name="Flesh and Blood", slug="fab", card_game="fab")
    path = tmp_path / "fab.json"
    path.write_text(json.dumps([{"name": "Sink Below", "name_fr": "Couler", "type": "Generic Defense Reaction"}]))
    import_cards(game, path)
    assert [c.name for c in search_cards(game, "couler")] == ["Sink Below"]  # the look-ups are cached
    path.write_text(json.dumps([{"name": "Sink Below", "name_fr": "Sombrer"}, {"name": "Head Jab", "pitch": "rouge"}]))

    with pytest.raises(CardFileError, match="unexpected card record"):
        import_cards(game, path, batch_size=1)

    assert [c.name for c in search_cards(game, "sombrer")] == ["Sink Below"]


def test_the_command_embeds_the_cards_written_before_the_file_fails(tmp_path, capsys, monkeypatch):
    game = GameFactory(name="Flesh and Blood", slug="fab", card_game="fab")
    # Batches of one card, so the first card is written before the bad record (1,000 by default).
    monkeypatch.setattr("games.management.commands.import_cards.import_cards", partial(import_cards, batch_size=1))
    path = tmp_path / "fab.json"
    path.write_text(json.dumps([{"name": "Sink Below", "name_fr": "Sombrer"}, {"name": "Head Jab", "pitch": "rouge"}]))

    with pytest.raises(CommandError, match="unexpected card record"):
        call_command("import_cards", "fab", str(path), "--no-index")

    sink_below = Card.objects.get(game=game)
    assert sink_below.dense is not None  # searchable now, not after the next import
    assert "1 cards embedded." in capsys.readouterr().out


def test_an_mtgjson_set_with_nulls_and_a_stray_item_imports_its_cards_and_lists_the_item(tmp_path, capsys):
    """MTGJSON's shape (`{"data": {"code", "name", "cards": [...]}}`), with JSON nulls where a
    field is empty and one item that is not a card."""
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    cards = [{"name": "Opt", "type": "Instant", "types": ["Instant"], "text": None, "foreignData": None, "manaCost": "{U}"},
             "Opt"]
    path = tmp_path / "DOM.json"
    path.write_text(json.dumps({"data": {"code": "DOM", "name": "Dominaria", "cards": cards}}))

    call_command("import_cards", "magic", str(path), "--no-embed")

    opt = Card.objects.get(game=game)
    assert (opt.name, opt.text, opt.name_fr, opt.set_code) == ("Opt", "", "", "dom")
    assert "DOM.json, card 2: not an object" in capsys.readouterr().err


@pytest.mark.parametrize("content", ["42", '"cards"', '{"cards": "Opt"}', "null"])
def test_a_json_file_of_another_shape_is_one_clear_error(tmp_path, content):
    GameFactory(name="Magic", slug="magic", card_game="mtg")
    path = tmp_path / "cards.json"
    path.write_text(content)

    with pytest.raises(CommandError, match="cards.json: expected a list of cards or an object with 'cards'"):
        call_command("import_cards", "magic", str(path), "--no-embed")
