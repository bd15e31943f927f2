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
    header = page.split('id="booklet-choice"')[1].split("</fieldset>")[0]
    assert f'value="{ticked.pk}" checked' in header  # shown and ticked
    assert f'value="{unticked.pk}">' in header  # shown, left unticked by the link
    assert str(foreign.pk) not in header


def test_chat_page_without_a_choice_ticks_every_booklet_of_the_game(client, bob):
    game = GameFactory(name="Les Aéronautes")
    storm, faq = ExtensionFactory(game=game, name="Storm Front"), ExtensionFactory(game=game, name="FAQ", kind="faq")
    client.force_login(bob)

    response = client.get(reverse("oracle-chat", args=[game.slug]))

    assert sorted(chat_config(response)["extensions"]) == sorted([str(storm.pk), str(faq.pk)])
    assert chat_config(response)["choiceFromUrl"] is False
    header = response.content.decode().split('id="booklet-choice"')[1].split("</fieldset>")[0]
    assert f'value="{storm.pk}" checked' in header and f'value="{faq.pk}" checked' in header
    assert reverse("oracle-game-changes", args=[game.slug]) in header


def test_a_bare_ext_in_the_link_means_the_base_booklet_alone(client, bob):
    game = GameFactory()
    ExtensionFactory(game=game)
    client.force_login(bob)
    response = client.get(reverse("oracle-chat", args=[game.slug]) + "?ext=")
    assert chat_config(response)["extensions"] == [] and chat_config(response)["choiceFromUrl"] is True


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
