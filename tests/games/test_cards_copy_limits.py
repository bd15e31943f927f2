"""A pasted list's copy limit and legality by each card's own rules: a Vintage restricted card
is one copy, a card whose text allows any number (or up to seven) of itself is not held to
four, a basic land the format does not allow (Snow-Covered Forest in Standard) is not legal."""

import json

from django.utils import translation

from games.card_import import import_cards
from games.deck_requests import check_decklist
from tests.card_fixtures import SCRYFALL_SAMPLE
from tests.factories import GameFactory

EVERYWHERE = {"standard": "not_legal", "modern": "legal", "legacy": "legal", "commander": "legal"}


def scryfall_card(name: str, text: str, type_line: str, legalities: dict, cost: str = "{B}") -> dict:
    return {"object": "card", "lang": "en", "oracle_id": f"oracle-{name}", "name": name, "mana_cost": cost,
            "type_line": type_line, "oracle_text": text, "colors": ["B"], "color_identity": ["B"],
            "legalities": legalities, "set": "tst", "set_name": "Test", "rarity": "common"}  # fmt: skip


CARDS = [
    scryfall_card("Black Lotus", "{T}, Sacrifice Black Lotus: Add three mana of any one color.", "Artifact",
                  {"vintage": "restricted", "legacy": "banned", "commander": "banned"}, cost="{0}"),  # fmt: skip
    scryfall_card("Relentless Rats", "Relentless Rats gets +1/+1 for each other creature on the battlefield named "
                  "Relentless Rats.\nA deck can have any number of cards named Relentless Rats.", "Creature — Rat",
                  {**EVERYWHERE, "vintage": "legal"}),  # fmt: skip
    scryfall_card("Seven Dwarves", "Seven Dwarves gets +1/+1 for each other creature named Seven Dwarves you control."
                  "\nA deck can have up to seven cards named Seven Dwarves.", "Creature — Dwarf",
                  {**EVERYWHERE, "vintage": "legal"}),  # fmt: skip
    scryfall_card("Dark Ritual", "Add {B}{B}{B}.", "Instant", {**EVERYWHERE, "vintage": "legal"}),
]


def verdict_of(game, text, format):
    with translation.override("en"):
        return check_decklist(game, text, format=format).verdict


def catalog(tmp_path):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(CARDS), encoding="utf-8")
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    import_cards(game, path)
    return game


def test_a_restricted_card_is_one_copy_in_vintage_and_four_elsewhere_stay_four(db, tmp_path):
    game = catalog(tmp_path)

    four = verdict_of(game, "4 Black Lotus\n56 Island\n", "vintage")
    one = verdict_of(game, "1 Black Lotus\n4 Dark Ritual\n55 Island\n", "vintage")

    assert not four.valid
    assert four.issues == ["Black Lotus: 4 copies, the maximum is 1."]
    assert one.valid, one.issues


def test_a_card_allowing_any_number_of_itself_is_not_held_to_four_nor_to_one(db, tmp_path):
    game = catalog(tmp_path)

    modern = verdict_of(game, "30 Relentless Rats\n30 Swamp\n", "modern")
    commander = verdict_of(game, "Commander\n1 Dark Ritual\n\nDeck\n60 Relentless Rats\n39 Swamp\n", "commander")
    ritual = verdict_of(game, "30 Dark Ritual\n30 Swamp\n", "modern")

    assert modern.valid, modern.issues
    assert not any("Relentless Rats" in issue for issue in commander.issues), commander.issues
    assert ritual.issues == ["Dark Ritual: 30 copies, the maximum is 4."]  # only the card that says so


def test_a_card_allowing_up_to_seven_of_itself_is_held_to_seven(db, tmp_path):
    game = catalog(tmp_path)

    seven = verdict_of(game, "7 Seven Dwarves\n53 Swamp\n", "modern")
    eight = verdict_of(game, "8 Seven Dwarves\n52 Swamp\n", "modern")

    assert seven.valid, seven.issues
    assert eight.issues == ["Seven Dwarves: 8 copies, the maximum is 7."]


def test_a_basic_land_the_format_does_not_allow_is_not_legal(db):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    import_cards(game, SCRYFALL_SAMPLE)

    snow = verdict_of(game, "4 Delver of Secrets\n28 Snow-Covered Forest\n28 Wastes\n", "standard")
    plain = verdict_of(game, "4 Delver of Secrets\n56 Forest\n", "standard")

    assert not snow.valid
    assert "Snow-Covered Forest is not legal in standard." in snow.issues
    assert "Wastes is not legal in standard." in snow.issues
    assert plain.valid, plain.issues  # basics beyond four copies are still fine
