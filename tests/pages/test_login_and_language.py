from django.urls import reverse

from tests.factories import GameFactory


def test_login_page_signs_a_player_in_and_goes_back_where_they_were(client, bob):
    game = GameFactory(rules=True)
    chat_url = reverse("oracle-chat", args=[game.slug])
    login_page = client.get(reverse("oracle-login"), {"next": chat_url}).content.decode()
    assert "oracle.css" in login_page and 'name="next" value="' + chat_url + '"' in login_page

    response = client.post(reverse("oracle-login"), {"username": "bob", "password": "correct horse battery staple",
                                                     "next": chat_url})

    assert response.status_code == 302 and response["Location"] == chat_url
    assert client.get(chat_url).status_code == 200


def test_wrong_password_says_so(client, bob):
    page = client.post(reverse("oracle-login"), {"username": "bob", "password": "nope"}).content.decode()
    assert "Identifiant ou mot de passe incorrect." in page


def test_language_switch_shows_the_site_in_english(client, bob):
    client.force_login(bob)
    assert "Poser une question" in client.get("/").content.decode() or "Aucun jeu" in client.get("/").content.decode()

    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = client.get("/").content.decode()

    assert '<html lang="en">' in page
    assert "The rules oracle" in page and "Log out" in page


def test_a_visitor_who_wants_to_ask_is_told_it_needs_an_account_and_whom_to_ask(client, settings, db):
    settings.PUBLIC_CATALOGUE = True
    settings.ASK_ALLOW_ANONYMOUS = False
    game = GameFactory(rules=True, name="Heat", slug="heat")
    home = client.get("/").content.decode()
    assert reverse("oracle-chat", args=[game.slug]) in home  # the « Poser une question » form goes there

    page = client.get(reverse("oracle-chat", args=[game.slug]), {"ext": ""}, follow=True).content.decode()

    assert "Pour poser une question à l'Oracle, il faut un compte" in page
    assert "Pas encore de compte ? Demandez-en un à l&#x27;administrateur du club." in page
    assert 'name="next" value="/jeux/heat/?ext="' in page  # and back to the chat once signed in


def test_the_login_page_names_the_clubs_contact_when_the_setting_gives_one(client, settings):
    settings.ORACLE_ACCOUNT_CONTACT = "bureau@club-des-joueurs.example"

    page = client.get(reverse("oracle-login")).content.decode()

    assert '<a href="mailto:bureau@club-des-joueurs.example">bureau@club-des-joueurs.example</a>' in page
    assert "il faut un compte" not in page  # nobody was trying to ask

    settings.ORACLE_ACCOUNT_CONTACT = "Camille (mardi soir, au club)"
    assert "Demandez-en un à Camille (mardi soir, au club)." in client.get(reverse("oracle-login")).content.decode()


def test_the_reason_and_the_contact_are_in_english_for_an_english_visitor(client, settings, db):
    settings.PUBLIC_CATALOGUE = True
    game = GameFactory(rules=True, name="Heat", slug="heat")

    page = client.get(reverse("oracle-chat", args=[game.slug]), follow=True, HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "Asking the Oracle a question requires an account" in page
    assert "No account yet? Ask the club&#x27;s administrator for one." in page
