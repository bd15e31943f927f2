"""What a client meets on the deck and card endpoints with input they cannot use as is: a
pasted line the parser could not read is named in the verdict's warnings (in the client's
language) rather than dropped without a word; a card game whose cards are not imported yet is
a 422 that costs no rate-limit request; a card `limit` out of 1..25 is a 422 naming it."""

import json

import pytest

from games.deck_requests import DeckAnswer
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

PASTED = "4 Opt\nShivan Fire\n-2 Academy Drake\nfour Llanowar Elves\n4 Shivan Fire"


@pytest.fixture
def magic(magic_catalog):
    return magic_catalog


@pytest.fixture
def no_cards_yet(db):
    return GameFactory(name="Magic sans cartes", slug="magic-vide", card_game="mtg")


def post(client, url, body, **headers):
    return client.post(url, json.dumps(body), content_type="application/json", headers=headers)


def test_each_unread_line_of_a_pasted_list_is_named_in_the_warnings(player, magic):
    response = post(player, "/api/decks/validate", {"gameId": str(magic.pk), "format": "standard", "decklist": PASTED})

    assert response.status_code == 200
    checked = response.json()
    assert checked["sections"] == {"main": [[4, "Opt"], [4, "Shivan Fire"]]}
    assert checked["validation"]["warnings"] == [
        f"Ligne non lue, laissée hors de la liste (ni « 4 Nom de la carte », ni titre de section) : « {line} »."
        for line in ("Shivan Fire", "-2 Academy Drake", "four Llanowar Elves")
    ]


def test_an_english_reader_gets_the_unread_lines_in_english_and_a_long_line_shortened(player, magic):
    long_line = "Academy Drake " * 10
    body = {"gameId": str(magic.pk), "decklist": f"4 Opt\nfour Llanowar Elves\n{long_line}"}

    warnings = post(player, "/api/decks/validate", body, **{"Accept-Language": "en"}).json()["validation"]["warnings"]

    assert warnings == [
        "Line not read, left out of the list (neither “4 Card name” nor a section heading): “four Llanowar Elves”.",
        f"Line not read, left out of the list (neither “4 Card name” nor a section heading): “{long_line[:60]}…”.",
    ]


def test_the_headings_and_notes_of_an_export_are_not_reported(player, magic):
    arena = "About\nName Bleu\n\nDeck\n4 Opt (DOM) 60\n\nSideboard\n2 Syncopate (DOM) 67\n"
    fabrary_notes = "\nMade with ❤️ at the FaBrary\nSee the full deck @ https://fabrary.net/decks/01JZKYA2135MAN58K9VKKR4JYA"

    checked = post(player, "/api/decks/validate", {"gameId": str(magic.pk), "decklist": arena + fabrary_notes}).json()

    assert checked["validation"]["warnings"] == []
    assert checked["sections"] == {"main": [[4, "Opt"]], "sideboard": [[2, "Syncopate"]]}


def test_hundreds_of_unread_lines_are_named_fifty_then_counted(player, magic):
    decklist = "4 Opt\n" + "\n".join(f"Opt numéro {n}" for n in range(70))

    warnings = post(player, "/api/decks/validate", {"gameId": str(magic.pk), "decklist": decklist}).json()["validation"]["warnings"]

    assert len(warnings) == 51
    assert warnings[0].endswith("« Opt numéro 0 ».") and warnings[49].endswith("« Opt numéro 49 ».")
    assert warnings[50] == "… et 20 autres lignes non lues."


@pytest.mark.parametrize("url, body", [("/api/decks", {"format": "standard"}), ("/api/decks/validate", {"decklist": "4 Opt"})])
def test_a_card_game_without_its_cards_imported_is_a_422_saying_so(player, no_cards_yet, url, body):
    response = post(player, url, {"gameId": str(no_cards_yet.pk), **body})

    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": "gameId", "message": "Les cartes de ce jeu ne sont pas encore importées."}]


def test_a_refused_deck_request_does_not_count_against_the_ask_rate_limit(player, magic, no_cards_yet, settings, monkeypatch):
    settings.RATE_LIMIT_ASK_USER, settings.RATE_LIMIT_ASK_IP = "1/h", ""
    built = DeckAnswer("Liste", {"deck": {"validation": {"valid": True, "issues": [], "warnings": [], "totals": {}},
                                          "spec": {}, "exports": {}, "builder": "offline", "attempts": 1}}, {"main": [(4, "Opt")]})  # fmt: skip
    monkeypatch.setattr("games.api_decks.ask_deckbuilding", lambda **kwargs: built)

    for _ in range(3):
        assert post(player, "/api/decks", {"gameId": str(no_cards_yet.pk)}).status_code == 422
    assert post(player, "/api/decks", {"gameId": str(magic.pk), "anchors": ["Zzxq Nonexistent"]}).status_code == 422
    first = post(player, "/api/decks", {"gameId": str(magic.pk)})
    second = post(player, "/api/decks", {"gameId": str(magic.pk)})

    assert first.status_code == 200 and first.json()["sections"] == {"main": [[4, "Opt"]]}
    assert second.status_code == 429 and int(second["Retry-After"]) > 0


@pytest.mark.parametrize("limit", ["0", "-5", "26"])
def test_a_card_limit_out_of_range_is_a_422_naming_limit(player, magic, limit):
    response = player.get(f"/api/games/{magic.pk}/cards", {"q": "a", "limit": limit})

    assert response.status_code == 422
    assert [error["field"] for error in response.json()["errors"]] == ["limit"]


def test_a_card_limit_of_25_gives_up_to_25_cards(player, magic):
    response = player.get(f"/api/games/{magic.pk}/cards", {"q": "a", "limit": "25"})

    assert response.status_code == 200 and 1 < len(response.json()) <= 25


def test_an_arena_commander_export_is_checked_by_its_commanders_identity(player, magic):
    """POST /api/decks/validate: the commander in its own section, counted in the 100, and a
    red card in a blue commander's deck named, in the client's language."""
    arena = ("Commander\n1 Naban, Dean of Iteration (DAR) 58\n\nDeck\n1 Opt (DAR) 60\n1 Shivan Fire\n"
             "97 Island (DAR) 254\n")  # fmt: skip

    checked = post(player, "/api/decks/validate", {"gameId": str(magic.pk), "decklist": arena},
                   **{"Accept-Language": "en"}).json()  # fmt: skip

    assert checked["spec"]["format"] == "commander" and checked["spec"]["commander"] == ""
    assert checked["sections"]["commander"] == [[1, "Naban, Dean of Iteration"]]
    assert checked["validation"]["totals"] == {"main": 100, "sideboard": 0}
    assert checked["validation"]["issues"] == ["Shivan Fire is outside the commander's colour identity (blue): red."]
    assert checked["exports"]["arena"].startswith("Commander\n1 Naban, Dean of Iteration (DAR) 58\n\nDeck\n")
