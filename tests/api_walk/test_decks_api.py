"""POST /api/decks (build a list from a request) and POST /api/decks/validate (check a pasted
one), over the real Dominaria catalog, with the chat's deckbuilding service (no LLM: the
list is built from the catalog)."""

import pytest

from questions.models import ApiToken
from games.card_import import import_cards
from tests.card_fixtures import SCRYFALL_SAMPLE, dominaria  # noqa: F401
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

PLAYABLE = """4 Llanowar Elves
4 Academy Drake
4 Llanowar Scout
4 Tolarian Scholar
4 Opt
4 Syncopate
4 Adventurous Impulse
4 Divination
4 Llanowar Envoy
12 Forest
12 Island

Sideboard
3 Wizard's Retort
3 Unwind
3 Broken Bond
3 Gift of Growth
3 Befuddle
"""


def bearer(user) -> dict:
    _, key = ApiToken.issue(user, "tests")
    return {"Authorization": f"Bearer {key}"}


def post(client, url, body, headers=None):
    return client.post(url, body, content_type="application/json", headers=headers or {})


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)  # built in the answer pool, on another connection
def test_a_standard_request_around_two_anchors_gives_a_legal_list_with_its_exports(client, bob, dominaria):
    body = {"gameId": str(dominaria.pk), "format": "Standard", "anchors": ["Llanowar Elves", "academy drake"],
            "constraints": "Un deck tempo vert-bleu."}  # fmt: skip

    response = post(client, "/api/decks", body, bearer(bob))

    assert response.status_code == 200, response.content
    deck = response.json()
    assert deck["validation"]["valid"], deck["validation"]["issues"]
    assert deck["validation"]["totals"] == {"main": 60, "sideboard": 15}
    assert sum(q for q, _ in deck["sections"]["main"]) == 60
    assert {"Llanowar Elves", "Academy Drake"} <= {name for _, name in deck["sections"]["main"]}
    assert deck["spec"]["format"] == "standard" and deck["builder"] == "offline"
    assert deck["exports"]["arena"].startswith("Deck\n")
    assert "<Deck" in deck["exports"]["mtgo_dek"] and "Llanowar Elves" in deck["exports"]["text"]
    assert "[[card:Llanowar Elves]]" in deck["answer"]
    assert "### Créatures" in deck["answer"]

    english = post(client, "/api/decks", body, {**bearer(bob), "Accept-Language": "en"}).json()  # built in a pool thread

    assert "### Creatures" in english["answer"] and "List built without an LLM" in english["answer"]


def test_an_unknown_anchor_is_a_field_error(client, bob, dominaria):
    body = {"gameId": str(dominaria.pk), "anchors": ["Llanowar Elves", "Zzxq Nonexistent Wurmqq"]}
    response = post(client, "/api/decks", body, bearer(bob))
    assert response.status_code == 422 and "detail" in response.json()


def test_a_game_without_cards_or_unknown_is_refused(client, bob):
    board_game = GameFactory()
    assert post(client, "/api/decks", {"gameId": str(board_game.pk)}, bearer(bob)).status_code == 422
    check = post(client, "/api/decks/validate", {"gameId": str(board_game.pk), "decklist": "4 Opt"}, bearer(bob))
    assert check.status_code == 422
    unknown = post(client, "/api/decks/validate", {"gameId": "00000000-0000-0000-0000-000000000000", "decklist": "4 Opt"},
                   bearer(bob))  # fmt: skip
    assert unknown.status_code == 404


def test_a_pasted_legal_list_is_valid_with_its_exports(client, bob, dominaria):
    body = {"gameId": str(dominaria.pk), "format": "standard", "decklist": PLAYABLE}

    response = post(client, "/api/decks/validate", body, bearer(bob))

    assert response.status_code == 200
    checked = response.json()
    assert checked["validation"] == {"valid": True, "issues": [], "warnings": [], "totals": {"main": 60, "sideboard": 15}}
    assert checked["sections"]["sideboard"][0] == [3, "Wizard's Retort"]
    assert checked["exports"]["arena"].splitlines()[:2] == ["Deck", "4 Llanowar Elves (DAR) 168"]


def test_a_pasted_list_with_too_many_copies_and_an_unknown_card_says_so(client, bob, dominaria):
    pasted = PLAYABLE.replace("4 Opt", "6 Opt").replace("12 Island", "10 Island\n2 Black Lotus Of Nowhere")
    response = post(client, "/api/decks/validate", {"gameId": str(dominaria.pk), "decklist": pasted}, bearer(bob))
    verdict = response.json()["validation"]
    assert not verdict["valid"]
    assert any("Opt : 6 exemplaires" in issue for issue in verdict["issues"])
    assert any("Black Lotus Of Nowhere" in warning for warning in verdict["warnings"])


def test_a_client_reading_english_gets_the_verdict_in_english(client, bob, dominaria):
    pasted = PLAYABLE.replace("4 Opt", "6 Opt").replace("12 Island", "6 Island\n2 Black Lotus Of Nowhere")
    headers = {**bearer(bob), "Accept-Language": "en"}

    verdict = post(client, "/api/decks/validate", {"gameId": str(dominaria.pk), "decklist": pasted}, headers).json()["validation"]

    assert verdict["issues"] == ["Main deck: 58 cards, at least 60 are needed.", "Opt: 6 copies, the maximum is 4."]
    assert verdict["warnings"] == ["Card not in the catalog: Black Lotus Of Nowhere."]


def test_the_same_card_written_in_another_case_counts_toward_the_copy_limit(client, bob, dominaria):
    pasted = PLAYABLE.replace("3 Befuddle", "3 opt")
    response = post(client, "/api/decks/validate", {"gameId": str(dominaria.pk), "decklist": pasted}, bearer(bob))
    verdict = response.json()["validation"]
    assert not verdict["valid"]
    assert "Opt : 7 exemplaires, le maximum est 4." in verdict["issues"]


def test_oracles_own_arena_export_pasted_back_is_the_same_valid_list(client, bob, dominaria):
    body = {"gameId": str(dominaria.pk), "format": "standard", "decklist": PLAYABLE}
    arena = post(client, "/api/decks/validate", body, bearer(bob)).json()["exports"]["arena"]
    assert "4 Opt (DAR) 60" in arena.splitlines()

    checked = post(client, "/api/decks/validate", {**body, "decklist": arena}, bearer(bob)).json()

    assert checked["validation"] == {"valid": True, "issues": [], "warnings": [], "totals": {"main": 60, "sideboard": 15}}
    assert [4, "Opt"] in checked["sections"]["main"]


def test_decks_are_for_whoever_may_ask(client, settings, bob, alice, dominaria):
    body = {"gameId": str(dominaria.pk), "decklist": PLAYABLE}
    assert post(client, "/api/decks/validate", body).status_code == 401
    assert post(client, "/api/decks", {"gameId": str(dominaria.pk)}).status_code == 401
    assert post(client, "/api/decks/validate", body, bearer(alice)).status_code == 200
    settings.ASK_ALLOW_ANONYMOUS = True
    assert post(client, "/api/decks/validate", body).status_code == 200


def test_a_constructed_list_needs_at_least_60_cards_and_at_most_15_in_its_sideboard(client, bob, dominaria):
    """By the rules, not the builder's target: 61 cards and a 7-card sideboard are legal."""
    body = {"gameId": str(dominaria.pk), "format": "standard"}
    longer = PLAYABLE.replace("12 Island", "13 Island").split("3 Unwind")[0]

    verdict = post(client, "/api/decks/validate", {**body, "decklist": longer}, bearer(bob)).json()["validation"]
    assert verdict["valid"] and verdict["totals"] == {"main": 61, "sideboard": 3}

    too_wide = PLAYABLE + "3 Shivan Fire\n"
    verdict = post(client, "/api/decks/validate", {**body, "decklist": too_wide}, bearer(bob)).json()["validation"]
    assert verdict["issues"] == ["Sideboard : 18 cartes, 15 au plus."]


def test_a_card_not_legal_in_the_format_is_an_issue(client, bob, dominaria):
    import_cards(dominaria, SCRYFALL_SAMPLE)  # Dark Ritual: legal in Legacy, not in Standard
    pasted = PLAYABLE.replace("4 Opt", "4 Dark Ritual")

    standard = post(client, "/api/decks/validate", {"gameId": str(dominaria.pk), "format": "standard", "decklist": pasted},
                    bearer(bob)).json()["validation"]  # fmt: skip
    legacy = post(client, "/api/decks/validate", {"gameId": str(dominaria.pk), "format": "legacy", "decklist": pasted},
                  bearer(bob)).json()["validation"]  # fmt: skip

    assert standard["issues"] == ["Dark Ritual n'est pas autorisée en standard."]
    assert "Dark Ritual" not in " ".join(legacy["issues"])


@pytest.mark.parametrize("format, sizes", [("EDH", {"main": 100, "sideboard": 0}), ("Standard Brawl", {"main": 60, "sideboard": 0}),
                                           ("   ", {"main": 60, "sideboard": 15})])  # fmt: skip
def test_a_format_is_checked_by_its_usual_name_and_a_blank_one_is_the_default(client, bob, dominaria, format, sizes):
    body = {"gameId": str(dominaria.pk), "format": format, "decklist": "1 Opt\n99 Island"}

    response = post(client, "/api/decks/validate", body, bearer(bob))

    assert response.status_code == 200, response.content
    spec = response.json()["spec"]
    assert {"main": spec["main"], "sideboard": spec["sideboard"]} == sizes


def test_arena_and_mtgo_exports_name_each_card_once_in_english(client, bob, dominaria):
    """A list pasted with French names (or both) exports what Arena and MTGO can import."""
    pasted = PLAYABLE.replace("4 Academy Drake", "2 Drakôn de l'Académie\n2 Academy Drake").replace("12 Island", "12 Île")

    exports = post(client, "/api/decks/validate", {"gameId": str(dominaria.pk), "decklist": pasted}, bearer(bob)).json()["exports"]

    arena = exports["arena"].splitlines()
    assert "4 Academy Drake (DAR) 40" in arena and "12 Island" in arena
    assert not [line for line in arena if "Drakôn" in line or "Île" in line]
    assert exports["mtgo_dek"].count('Name="Academy Drake"') == 1 and 'Quantity="4" Sideboard="false" Name="Academy Drake"' in exports["mtgo_dek"]
    assert "2 Drakôn de l'Académie" in exports["text"]  # the plain list stays as the player wrote it


def test_a_format_no_legality_knows_judges_no_card_illegal(client, bob, dominaria):
    """« Arena » is a client, not a format: every card was called not legal in it."""
    body = {"gameId": str(dominaria.pk), "format": "Arena", "decklist": PLAYABLE}

    verdict = post(client, "/api/decks/validate", body, bearer(bob)).json()["validation"]

    assert not [issue for issue in verdict["issues"] if "autorisée" in issue]
