"""How the deck endpoints and card chips resolve a name (real Dominaria catalog): a typo of a
whole name finds its card, a fragment names none (not an arbitrary card that starts so), and a
pasted list is resolved by exact names only, however long it is."""

import difflib

import pytest

from tests.api_walk.test_decks_api import PLAYABLE, bearer, post
from tests.card_fixtures import dominaria  # noqa: F401

pytestmark = pytest.mark.django_db


def lookup(client, game, name):
    return client.get(f"/api/games/{game.pk}/cards/lookup", {"name": name})


def test_a_fragment_of_several_names_is_no_card(client, bob, dominaria):
    client.force_login(bob)
    assert lookup(client, dominaria, "Teferi, Hero of Dominaria").json()["name"] == "Teferi, Hero of Dominaria"
    assert lookup(client, dominaria, "Teferi").status_code == 404  # Teferi's Sentinel before
    assert lookup(client, dominaria, "Academy").status_code == 404  # Academy Drake before
    assert lookup(client, dominaria, "Teferis Sentinel").json()["name"] == "Teferi's Sentinel"


def test_a_fragment_anchor_is_a_field_error_not_another_card(client, bob, dominaria):
    response = post(client, "/api/decks", {"gameId": str(dominaria.pk), "anchors": ["Teferi"]}, bearer(bob))
    assert response.status_code == 422
    assert "Teferi" in str(response.json()["detail"])


def test_a_pasted_list_is_checked_without_a_close_spelling_search_per_line(client, bob, dominaria, monkeypatch):
    # Thousands of unknown names would each cost a search over the catalog's names (seconds of
    # a web thread per request); they are reported unknown, and the known ones exported.
    def no_search(*args, **kwargs):
        raise AssertionError("a close-spelling search for a pasted line")

    monkeypatch.setattr(difflib, "get_close_matches", no_search)
    pasted = PLAYABLE + "".join(f"1 Zq{n} Unknown\n" for n in range(300))
    response = post(client, "/api/decks/validate", {"gameId": str(dominaria.pk), "decklist": pasted}, bearer(bob))
    assert response.status_code == 200
    checked = response.json()
    assert sum("Zq" in warning for warning in checked["validation"]["warnings"]) >= 1
    assert checked["exports"]["arena"].splitlines()[:2] == ["Deck", "4 Llanowar Elves (DAR) 168"]


def test_a_french_name_counts_with_the_english_copies(client, bob, dominaria):
    pasted = PLAYABLE.replace("3 Befuddle", "3 Option")  # Opt's French name: 7 Opt in all
    response = post(client, "/api/decks/validate", {"gameId": str(dominaria.pk), "decklist": pasted}, bearer(bob))
    verdict = response.json()["validation"]
    assert not verdict["valid"]
    assert any("7 exemplaires" in issue for issue in verdict["issues"]), verdict
