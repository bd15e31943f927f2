"""One way in for a question (questions/services.py): the chat page's « Régénérer » is counted
by the ask rate limits like a question (per user and per address); only the asker rates,
regenerates, stops or continues — staff included, through the pages and the API. (The ask
stream's `meta` and the question's save: test_meta_first.py.)"""

import pytest
from django.test import Client
from django.urls import reverse

from questions.ask_flow.intake import create_question
from questions.conversations import start_conversation
from questions.models import Question
from tests.factories import GameFactory, StaffFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(monkeypatch):
    """The questions whose answering started (the answer itself is not run here)."""
    ids = []
    record = lambda question_id, *a, **k: ids.append(question_id)  # noqa: E731
    monkeypatch.setattr("questions.views.start_answering", record)
    monkeypatch.setattr("questions.api.start_answering", record)
    return ids


def answered_turn(user, game=None):
    game = game or GameFactory()
    conversation = start_conversation(user=user, game=game)
    question = create_question(game=game, text="Combien de cartes ?", user=user, conversation=conversation)
    question.mark_done(answer="Sept [Heat, p.2].", intent="rules", best_score=0.9, diagnostics={})
    return question


def regenerate(client, question):
    return client.post(reverse("oracle-chat-regenerate", args=[question.game.slug, question.pk]))


def test_regenerating_is_counted_as_asking_per_user(client, bob, settings, started):
    settings.RATE_LIMIT_ASK_USER, settings.RATE_LIMIT_ASK_IP = "2/m", ""
    question = answered_turn(bob)
    client.force_login(bob)

    codes = [regenerate(client, question).status_code for _ in range(3)]

    assert codes == [200, 200, 429]
    assert len(started) == 2 and Question.objects.filter(replaces=question).count() == 2
    asked = client.post(reverse("oracle-chat-ask", args=[question.game.slug]), {"question": "Et après ?"})
    assert asked.status_code == 429 and "Trop de requêtes" in asked.content.decode()
    assert len(started) == 2


def test_regenerating_is_counted_per_address_for_visitors(settings, started):
    settings.RATE_LIMIT_ASK_USER, settings.RATE_LIMIT_ASK_IP = "", "2/m"
    settings.ASK_ALLOW_ANONYMOUS = True
    question = answered_turn(None)
    visitor = Client(REMOTE_ADDR="203.0.113.7")

    codes = [regenerate(visitor, question).status_code for _ in range(3)]

    assert codes == [200, 200, 429]
    assert regenerate(Client(REMOTE_ADDR="203.0.113.8"), question).status_code == 200
    assert len(started) == 3


def test_staff_neither_rate_nor_regenerate_nor_stop_nor_continue_a_players_turn_in_the_chat(client, bob, started):
    question = answered_turn(bob)
    client.force_login(StaffFactory())
    slug = question.game.slug

    rated = client.post(reverse("oracle-chat-feedback", args=[slug, question.pk]), {"rating": "-1", "comment": "faux"})
    again = regenerate(client, question)
    stopped = client.post(reverse("oracle-chat-stop", args=[slug, question.pk]))
    followed = client.post(reverse("oracle-chat-ask", args=[slug]),
                           {"question": "Et après ?", "conversation": str(question.conversation_id)})

    assert (rated.status_code, again.status_code, stopped.status_code, followed.status_code) == (403, 403, 403, 404)
    question.refresh_from_db()
    assert question.rating is None and question.feedback_comment == ""
    assert list(Question.objects.all()) == [question] and started == []
    # the player herself still can
    client.force_login(bob)
    assert client.post(reverse("oracle-chat-feedback", args=[slug, question.pk]), {"rating": "1"}).status_code == 200
    assert regenerate(client, question).status_code == 200


def test_staff_neither_rate_nor_continue_a_players_conversation_through_the_api(client, bob, started):
    question = answered_turn(bob)
    client.force_login(StaffFactory())

    rated = client.put(f"/api/ask/{question.pk}/feedback", {"rating": -1}, content_type="application/json")
    followed = client.post("/api/ask/stream", {"gameId": str(question.game_id), "question": "Et après ?",
                                               "conversationId": str(question.conversation_id)},
                           content_type="application/json")  # fmt: skip

    assert (rated.status_code, followed.status_code) == (403, 404)
    assert "detail" in rated.json() and "detail" in followed.json()
    question.refresh_from_db()
    assert question.rating is None and list(Question.objects.all()) == [question] and started == []
