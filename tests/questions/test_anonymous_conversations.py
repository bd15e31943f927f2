"""Who continues an anonymous conversation (ASK_ALLOW_ANONYMOUS on): a visitor by its id, as
before; a signed-in player only the one their own browser started before they signed in — it
then becomes theirs, with its turns. Any other ownerless conversation is refused to a player
with the 404 of another player's: their turn would land in a conversation nobody owns."""

import pytest
from django.test import Client
from django.urls import reverse

from questions import api
from questions.conversations import start_conversation
from questions.models import ApiToken, Conversation, Question
from tests.factories import PASSWORD, GameFactory
from tests.questions.test_meta_first import first_event

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def anyone_may_ask(settings):
    settings.ASK_ALLOW_ANONYMOUS = True


@pytest.fixture
def started(monkeypatch):
    """The questions the chat or the API started answering (the answer itself is not run)."""
    ids = []
    monkeypatch.setattr("questions.views.start_answering", lambda question_id, *a, **k: ids.append(question_id))
    monkeypatch.setattr(api, "start_answering", lambda question_id, *a, **k: ids.append(question_id))
    return ids


def page_ask(client, game, text, conversation=""):
    url = reverse("oracle-chat-ask", args=[game.slug])
    return client.post(url, {"question": text, "conversation": conversation}, HTTP_HX_REQUEST="true")


def api_ask(client, game, text, conversation, **headers):
    body = {"gameId": str(game.pk), "question": text, "conversationId": str(conversation.pk)}
    return client.post("/api/ask/stream", body, content_type="application/json", headers=headers)


def sign_in(client, user):
    response = client.post(reverse("oracle-login"), {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302


def first_event_as(client, game, text, conversation) -> tuple[str, dict]:
    """The first event of the API's stream, asked with `client`'s cookies (its session)."""
    body = {"gameId": str(game.pk), "question": text, "conversationId": str(conversation.pk)}
    return first_event({}, body, cookies=client.cookies)


def test_a_player_cannot_write_into_an_anonymous_conversation_their_browser_did_not_start(client, bob, started):
    game = GameFactory(rules=True)
    strangers = Client()
    page_ask(strangers, game, "Qui commence ?")  # another browser, anonymous
    anonymous = Conversation.objects.get()
    _, key = ApiToken.issue(bob)
    sign_in(client, bob)

    assert client.get(reverse("oracle-chat-conversation", args=[game.slug, anonymous.pk])).status_code == 404
    assert page_ask(client, game, "Et ensuite ?", anonymous.pk).status_code == 404
    assert api_ask(client, game, "Et ensuite ?", anonymous).status_code == 404  # the session
    assert api_ask(Client(), game, "Et ensuite ?", anonymous, Authorization=f"Bearer {key}").status_code == 404

    assert Question.objects.count() == 1 and len(started) == 1  # nothing added, nothing answered
    assert Conversation.objects.get().user is None
    assert page_ask(strangers, game, "Et ensuite ?", anonymous.pk).status_code == 200  # its visitor goes on


def test_signing_in_in_the_browser_that_started_it_makes_the_conversation_the_players(client, bob, started):
    game = GameFactory(rules=True)
    page_ask(client, game, "Qui commence ?")
    conversation = Conversation.objects.get()
    first = Question.objects.get()
    assert conversation.user is None
    sign_in(client, bob)  # Django keeps the session's data across a login

    page = client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk]))
    assert page.status_code == 200 and "Qui commence ?" in page.content.decode()
    response = page_ask(client, game, "Et ensuite ?", conversation.pk)

    assert response.status_code == 200
    conversation.refresh_from_db()
    assert conversation.user == bob and conversation.questions.filter(user=bob).count() == 2
    listed = client.get(reverse("oracle-chat", args=[game.slug])).content.decode()
    assert str(conversation.pk) in listed  # in the player's own list now
    assert Client().get(f"/api/ask/{first.pk}").status_code == 404  # no longer readable by its id alone
    assert Client().get(f"/api/conversations/{conversation.pk}").status_code == 404


def test_the_api_with_that_browsers_session_continues_it_too(client, bob, started):
    game = GameFactory(rules=True)
    page_ask(client, game, "Qui commence ?")
    conversation = Conversation.objects.get()
    sign_in(client, bob)

    name, meta = first_event_as(client, game, "Et ensuite ?", conversation)

    assert name == "meta" and meta["conversationId"] == str(conversation.pk)
    conversation.refresh_from_db()
    assert conversation.user == bob and Question.objects.get().user == bob  # adopted with its first turn


def test_a_player_cannot_regenerate_a_turn_of_an_anonymous_conversation_either(client, bob, started):
    game = GameFactory(rules=True)
    page_ask(Client(), game, "Qui commence ?")  # another browser, anonymous
    turn = Question.objects.get()
    turn.mark_done(answer="Le plus jeune.", intent="rules", best_score=0.9, diagnostics={})
    sign_in(client, bob)

    response = client.post(reverse("oracle-chat-regenerate", args=[game.slug, turn.pk]), HTTP_HX_REQUEST="true")

    assert response.status_code == 403 and Question.objects.count() == 1
