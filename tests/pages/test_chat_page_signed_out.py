"""The chat page's answers around what tests/e2e/test_chat_page_*.py drive in a browser: a
player signed out meanwhile reads so, with a link back to their conversation; Back and
Forward load the page again; a next question keeps the page's URL; the polling fallback's
bound comes from the server."""

import json

import pytest
from django.urls import reverse

from questions.conversations import start_conversation
from questions.models import Question
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(monkeypatch):
    ids = []
    monkeypatch.setattr("questions.views.start_answering", lambda question_id, *a, **k: ids.append(question_id))
    return ids


def test_a_player_signed_out_meanwhile_gets_a_link_back_to_the_conversation(client, bob):
    game = GameFactory(rules=True)
    conversation = start_conversation(user=bob, game=game, title="Combien ?")
    here = reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])
    hx = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": f"http://testserver{here}"}

    response = client.post(reverse("oracle-chat-ask", args=[game.slug]),
                           {"question": "Qui commence ?", "conversation": conversation.pk}, **hx)

    assert response.status_code == 403 and response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert "Vous avez été déconnecté." in body and "Identifiez-vous" not in body
    assert f'<a href="/login/?next={here}">Se reconnecter</a>' in body
    assert not Question.objects.exists()
    # a turn's action too; without HX-Current-URL, back to the game's chat
    question_id = "00000000-0000-0000-0000-000000000001"
    response = client.post(reverse("oracle-chat-regenerate", args=[game.slug, question_id]), HTTP_HX_REQUEST="true")
    assert response.status_code == 403
    assert f'href="/login/?next={reverse("oracle-chat", args=[game.slug])}"' in response.content.decode()


def test_the_page_reloads_on_back_pushes_one_url_and_bounds_its_polling(client, bob, started):
    game = GameFactory(rules=True)
    client.force_login(bob)

    page = client.get(reverse("oracle-chat", args=[game.slug])).content.decode()

    config = json.loads(page.split('id="chat-config" type="application/json">')[1].split("</script>")[0])
    assert (config["pollEveryS"], config["pollMaxTries"]) == (3, 15)
    assert config["strings"]["gaveUp"] == "L'Oracle n'a pas pu terminer sa réponse. Réessayez dans un instant."
    meta = page.split('<meta name="htmx-config" content=\'')[1].split("'")[0]
    assert json.loads(meta) == {"historyCacheSize": 0, "refreshOnHistoryMiss": True}

    ask = reverse("oracle-chat-ask", args=[game.slug])
    first = client.post(ask, {"question": "Combien ?"}, HTTP_HX_REQUEST="true")
    conversation = Question.objects.get().conversation
    assert first["HX-Push-Url"] == reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])
    Question.objects.update(status=Question.Status.DONE, answer="Deux.")
    second = client.post(ask, {"question": "Et après ?", "conversation": conversation.pk}, HTTP_HX_REQUEST="true")
    assert second.status_code == 200 and "HX-Push-Url" not in second  # no second history entry
