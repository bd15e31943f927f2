"""GET /api/games/{id}/cards/lookup?name=: the card a chip of an answer names."""

from django.test import Client

from tests.factories import GameFactory


def lookup(client, game, name):
    return client.get(f"/api/games/{game.pk}/cards/lookup", {"name": name})


def test_english_name_gives_the_whole_card(client_bob, magic_catalog):
    response = lookup(client_bob, magic_catalog, "Academy Drake")
    assert response.status_code == 200
    card = response.json()
    assert card["name"] == "Academy Drake" and card["name_fr"] == "Drakôn de l'Académie"
    assert card["cost"] == "{2}{U}" and card["type_line"].startswith("Creature")
    assert "Kicker {4}" in card["text"] and card["set_code"].upper() == "DOM" and card["set_name"] == "Dominaria"


def test_french_name_and_close_spelling_find_the_card(client_bob, magic_catalog):
    assert lookup(client_bob, magic_catalog, "Drakôn de l'Académie").json()["name"] == "Academy Drake"
    assert lookup(client_bob, magic_catalog, "Llanowar Elvs").json()["name"] == "Llanowar Elves"


def test_unknown_card_is_a_404(client_bob, magic_catalog):
    assert lookup(client_bob, magic_catalog, "Black Lotus").status_code == 404
    assert lookup(client_bob, GameFactory(), "Llanowar Elves").status_code == 404


def test_anonymous_visitor_is_refused_unless_asking_is_open(magic_catalog, settings):
    settings.ASK_ALLOW_ANONYMOUS = False
    assert lookup(Client(), magic_catalog, "Academy Drake").status_code == 401
    settings.ASK_ALLOW_ANONYMOUS = True
    assert lookup(Client(), magic_catalog, "Academy Drake").status_code == 200


def test_the_endpoint_is_in_the_openapi_schema(client_bob):
    paths = client_bob.get("/api/openapi.json").json()["paths"]
    operation = paths["/api/games/{game_id}/cards/lookup"]["get"]
    assert [p["name"] for p in operation["parameters"]] == ["game_id", "name"]
    assert "text_fr" in str(client_bob.get("/api/openapi.json").json()["components"]["schemas"]["CardDetailOut"])


def test_a_script_with_an_api_token_reaches_the_cards_like_the_chat(bob, magic_catalog):
    from questions.models import ApiToken

    _, key = ApiToken.issue(bob, "tests")
    script = Client(headers={"Authorization": f"Bearer {key}"})

    assert lookup(script, magic_catalog, "Academy Drake").json()["name"] == "Academy Drake"
    names = [c["name"] for c in script.get(f"/api/games/{magic_catalog.pk}/cards", {"q": "llan"}).json()]
    assert "Llanowar Elves" in names
