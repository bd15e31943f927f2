"""The French print of a split card (« Feu // Glace » for Fire // Ice): its French front face
names the card like its English one, in a look-up and in a pasted list's copy limit."""

import json

import pytest

from games.card_import import import_cards
from games.models import Game
from questions.models import ApiToken
from tests.factories import GameFactory

FIRE_ICE = {
    "object": "card", "oracle_id": "o-fire", "name": "Fire // Ice", "lang": "fr", "layout": "split",
    "mana_cost": "{1}{R} // {1}{U}", "type_line": "Instant // Instant", "color_identity": ["R", "U"],
    "legalities": {"modern": "legal", "commander": "legal"}, "set": "mh2", "set_name": "Modern Horizons 2",
    "card_faces": [
        {"name": "Fire", "printed_name": "Feu", "mana_cost": "{1}{R}", "type_line": "Instant",
         "oracle_text": "Fire deals 2 damage divided as you choose among one or two targets.",
         "printed_text": "Feu inflige 2 blessures réparties comme vous le désirez entre une ou deux cibles."},
        {"name": "Ice", "printed_name": "Glace", "mana_cost": "{1}{U}", "type_line": "Instant",
         "oracle_text": "Tap target permanent.\nDraw a card.",
         "printed_text": "Engagez le permanent ciblé.\nPiochez une carte."},
    ],
}  # fmt: skip
ISLAND = {
    "object": "card", "oracle_id": "o-island", "name": "Island", "lang": "en", "layout": "normal",
    "type_line": "Basic Land — Island", "color_identity": ["U"], "legalities": {"modern": "legal"},
    "set": "mh2", "set_name": "Modern Horizons 2",
}  # fmt: skip


@pytest.fixture
def fire_ice(db, tmp_path) -> Game:
    game = GameFactory(name="Magic", slug="magic", card_game=Game.CardGame.MTG)
    path = tmp_path / "cards.json"
    path.write_text(json.dumps([FIRE_ICE, ISLAND]), encoding="utf-8")
    import_cards(game, path)
    return game


def test_the_french_front_face_finds_the_card(client_bob, fire_ice):
    response = client_bob.get(f"/api/games/{fire_ice.pk}/cards/lookup", {"name": "Feu"})

    assert response.status_code == 200
    assert response.json()["name"] == "Fire // Ice"


def test_the_french_and_english_front_faces_count_as_one_card(client, bob, fire_ice):
    _, key = ApiToken.issue(bob, "tests")
    body = {"gameId": str(fire_ice.pk), "format": "modern", "decklist": "4 Fire\n4 Feu\n52 Island"}

    response = client.post("/api/decks/validate", body, content_type="application/json",
                           headers={"Authorization": f"Bearer {key}", "Accept-Language": "en"})  # fmt: skip

    verdict = response.json()["validation"]
    assert not verdict["valid"]
    assert "Fire: 8 copies, the maximum is 4." in verdict["issues"]
