import json

from django.urls import reverse

from tests.factories import ExtensionFactory, GameFactory


def chat_config(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="chat-config" type="application/json">') + len('<script id="chat-config" type="application/json">')
    return json.loads(html[start:html.index("</script>", start)])


def test_chat_page_sends_only_the_ticked_booklets_of_this_game(client, bob):
    game = GameFactory(name="Heat")
    ticked, unticked = ExtensionFactory(game=game), ExtensionFactory(game=game)
    foreign = ExtensionFactory()
    client.force_login(bob)

    response = client.get(reverse("oracle-chat", args=[game.slug]), {"ext": [ticked.pk, foreign.pk]})

    config = chat_config(response)
    assert config["gameId"] == str(game.pk)
    assert config["extensions"] == [str(ticked.pk)]
    assert config["maxChars"] == 500 and config["maxHistory"] == 5
    assert config["strings"]["offline"] == "L'Oracle finalise hors-ligne…"
    page = response.content.decode()
    assert 'maxlength="500"' in page
    assert "Nouvelle conversation" in page
    assert unticked.name not in page.split('id="turns"')[0]


def test_chat_page_asks_anonymous_visitors_to_log_in(client, db):
    game = GameFactory()
    response = client.get(reverse("oracle-chat", args=[game.slug]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("oracle-login"))


def test_chat_page_is_open_to_anonymous_visitors_when_the_setting_allows(client, db, settings):
    settings.ASK_ALLOW_ANONYMOUS = True
    game = GameFactory()
    assert client.get(reverse("oracle-chat", args=[game.slug])).status_code == 200


def test_chat_page_of_unknown_game_is_404(client, bob):
    client.force_login(bob)
    assert client.get(reverse("oracle-chat", args=["nope"])).status_code == 404
