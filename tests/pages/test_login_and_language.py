from django.urls import reverse

from tests.factories import GameFactory


def test_login_page_signs_a_player_in_and_goes_back_where_they_were(client, bob):
    game = GameFactory()
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
