"""A chat page whose CSRF token went stale (its player signed in again in another tab, which
rotates the token) is told to reload, in words the chat can show: not « check your network »."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

FORM_TOKEN = r'name="csrfmiddlewaretoken" value="([^"]+)"'


def sign_in(client: Client) -> None:
    token = re.search(FORM_TOKEN, client.get(reverse("oracle-login")).content.decode())[1]
    response = client.post(reverse("oracle-login"), {"username": "bob", "password": "pw", "csrfmiddlewaretoken": token})
    assert response.status_code == 302


@pytest.fixture
def stale_chat(bob):
    """Bob's browser and the X-CSRFToken of a chat page opened before he signed in again elsewhere."""
    game = GameFactory(rules=True, name="Heat")
    bob.set_password("pw")
    bob.save()
    browser = Client(enforce_csrf_checks=True)
    sign_in(browser)
    page = browser.get(reverse("oracle-chat", args=[game.slug])).content.decode()
    header_token = re.search(r'"X-CSRFToken": "([^"]+)"', page)[1]
    # another tab: signing out, then in again (which rotates the CSRF cookie)
    token = re.search(FORM_TOKEN, browser.get(reverse("oracle-home")).content.decode())[1]
    browser.post(reverse("oracle-logout"), {"csrfmiddlewaretoken": token})
    sign_in(browser)
    return browser, game, header_token


def test_a_chat_request_with_a_stale_token_says_to_reload_the_page(stale_chat):
    browser, game, header_token = stale_chat

    response = browser.post(reverse("oracle-chat-ask", args=[game.slug]), {"question": "Combien de cartes ?"},
                            HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=header_token)

    assert response.status_code == 403 and response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "Formulaire expiré : rechargez la page."
    english = browser.post(reverse("oracle-chat-ask", args=[game.slug]), {"question": "How many cards?"},
                           HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=header_token, HTTP_ACCEPT_LANGUAGE="en")
    assert english.content.decode() == "Form expired: reload the page."


def test_a_stale_form_outside_the_chat_keeps_its_page_and_the_api_its_json(stale_chat):
    browser, _, header_token = stale_chat

    page = browser.post(reverse("oracle-logout"), {"csrfmiddlewaretoken": header_token})
    api = browser.post("/api/games/ingest", {"new_game_name": "Heat"}, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=header_token)

    assert page.status_code == 403 and page["Content-Type"].startswith("text/html")
    assert "Formulaire expiré" in page.content.decode() and 'class="topbar"' in page.content.decode()
    assert api.status_code == 403 and api.json()["detail"].startswith("Vérification CSRF échouée")
