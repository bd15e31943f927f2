"""An MTGJSON v5 set file: its ids under `identifiers`, one record per face of a split or
double-faced card, and its restricted cards, read as Scryfall's bulk file gives them."""

import json

from games.card_import import import_cards
from games.models import Card
from tests.factories import GameFactory

IDS = {"scryfallOracleId": "oracle-fire-ice", "mtgoId": "91234", "mtgArenaId": "70001"}
LEGAL = {"modern": "Legal", "legacy": "Legal", "vintage": "Legal", "commander": "Legal"}


def face(side: str, name: str, cost: str, text: str, name_fr: str, text_fr: str, color: str) -> dict:
    return {"name": "Fire // Ice", "faceName": name, "side": side, "layout": "split", "manaCost": cost,
            "type": "Instant", "types": ["Instant"], "text": text, "colors": [color], "colorIdentity": ["R", "U"],
            "setCode": "MH2", "number": "290", "legalities": LEGAL, "identifiers": IDS,
            "foreignData": [{"language": "French", "name": "Feu // Glace", "faceName": name_fr, "text": text_fr}]}  # fmt: skip


FIRE = face("a", "Fire", "{1}{R}", "Fire deals 2 damage divided as you choose among one or two targets.", "Feu",
            "Feu inflige 2 blessures réparties comme vous le souhaitez entre une ou deux cibles.", "R")  # fmt: skip
ICE = face("b", "Ice", "{1}{U}", "Tap target permanent.\nDraw a card.", "Glace", "Engagez le permanent ciblé.\nPiochez une carte.", "U")
RECALL = {"name": "Ancestral Recall", "manaCost": "{U}", "type": "Instant", "types": ["Instant"], "setCode": "VMA",
          "text": "Target player draws three cards.", "colors": ["U"], "colorIdentity": ["U"],
          "legalities": {"vintage": "Restricted", "legacy": "Banned"}, "identifiers": {"scryfallOracleId": "oracle-recall"}}  # fmt: skip
SCRYFALL_FIRE_ICE = {"object": "card", "lang": "en", "oracle_id": "oracle-fire-ice", "name": "Fire // Ice", "layout": "split",
                     "mana_cost": "{1}{R} // {1}{U}", "type_line": "Instant // Instant", "colors": ["R", "U"],
                     "card_faces": [{"oracle_text": FIRE["text"]}, {"oracle_text": ICE["text"]}],
                     "legalities": {"modern": "legal"}, "set": "mh2", "mtgo_id": 91234}  # fmt: skip


def set_file(tmp_path, cards, name="mh2.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"meta": {"version": "5.2.2"}, "data": {"code": "MH2", "name": "Modern Horizons 2", "cards": cards}}))
    return path


def magic():
    return GameFactory(name="Magic", slug="magic", card_game="mtg")


def test_the_faces_of_a_split_card_are_one_card_with_both_halves(db, tmp_path):
    game = magic()
    report = import_cards(game, set_file(tmp_path, [ICE, FIRE]))  # the faces in any order

    card = Card.objects.get(game=game)
    assert report.created == 1
    assert card.cost == "{1}{R} // {1}{U}"
    assert card.type_line == "Instant // Instant"
    assert card.text == f"{FIRE['text']} // {ICE['text']}"
    assert card.text_fr.endswith(" // Engagez le permanent ciblé.\nPiochez une carte.")
    assert card.colors == ["R", "U"]


def test_the_ids_under_identifiers_are_read(db, tmp_path):
    game = magic()
    import_cards(game, set_file(tmp_path, [FIRE, ICE]))

    card = Card.objects.get(game=game)
    assert card.key == "oracle-fire-ice"
    assert (card.attributes["mtgo_id"], card.attributes["arena_id"]) == ("91234", "70001")


def test_the_scryfall_file_after_the_set_file_updates_the_same_card(db, tmp_path):
    game = magic()
    import_cards(game, set_file(tmp_path, [FIRE, ICE]))
    path = tmp_path / "default-cards.json"
    path.write_text(json.dumps([SCRYFALL_FIRE_ICE]))

    report = import_cards(game, path)

    assert report.created == 0
    assert list(Card.objects.filter(game=game).values_list("name", flat=True)) == ["Fire // Ice"]


def test_a_card_read_before_by_its_name_keeps_its_row_under_its_oracle_id(db, tmp_path):
    game = magic()
    without_ids = [{k: v for k, v in record.items() if k != "identifiers"} for record in (FIRE, ICE)]
    import_cards(game, set_file(tmp_path, without_ids, "old.json"))  # how the v5 file was read before
    first = Card.objects.get(game=game)

    report = import_cards(game, set_file(tmp_path, [FIRE, ICE]))

    card = Card.objects.get(game=game)
    assert (report.created, report.updated) == (0, 1)
    assert (card.pk, card.key) == (first.pk, "oracle-fire-ice")


def test_a_restricted_card_is_legal_and_known_as_restricted(db, tmp_path):
    game = magic()
    import_cards(game, set_file(tmp_path, [RECALL]))

    recall = Card.objects.get(game=game)
    assert recall.legal_formats == ["vintage"]
    assert recall.attributes["restricted_in"] == ["vintage"]
