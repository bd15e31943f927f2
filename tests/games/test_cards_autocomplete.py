from django.test import Client

from tests.factories import GameFactory


def names(client, game, q):
    response = client.get(f"/api/games/{game.pk}/cards", {"q": q})
    assert response.status_code == 200
    return [card["name"] for card in response.json()]


def test_prefix_of_the_english_name_suggests_the_card_first(client_bob, magic_catalog):
    assert names(client_bob, magic_catalog, "Academy D")[0] == "Academy Drake"


def test_french_name_finds_the_card(client_bob, magic_catalog):
    found = client_bob.get(f"/api/games/{magic_catalog.pk}/cards", {"q": "drakon de l"}).json()
    assert found[0]["name"] == "Academy Drake"
    assert found[0]["name_fr"] == "Drakôn de l'Académie"


def test_a_word_inside_the_name_matches(client_bob, magic_catalog):
    assert "Llanowar Elves" in names(client_bob, magic_catalog, "elves")


def test_a_misspelt_name_still_finds_the_card(client_bob, magic_catalog):
    assert "Llanowar Elves" in names(client_bob, magic_catalog, "Llanowar Elvs")


def test_game_without_catalog_gives_no_suggestion(client_bob, db):
    assert names(client_bob, GameFactory(), "bolt") == []


def test_anonymous_visitor_is_refused_unless_asking_is_open(magic_catalog, settings):
    settings.ASK_ALLOW_ANONYMOUS = False
    assert Client().get(f"/api/games/{magic_catalog.pk}/cards", {"q": "aca"}).status_code == 401
    settings.ASK_ALLOW_ANONYMOUS = True
    assert Client().get(f"/api/games/{magic_catalog.pk}/cards", {"q": "aca"}).status_code == 200
