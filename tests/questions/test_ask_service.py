"""One way in for a question (questions/services.py): the chat page's « Régénérer » is counted
by the ask rate limits like a question (per user and per address), and two at the same
moment make one new answer; only the asker rates, regenerates, stops or continues — staff
included, through the pages and the API. (The ask stream's `meta` and the question's save:
test_meta_first.py.)"""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from questions.ask_flow.intake import create_question
from questions.conversations import start_conversation
from questions.models import Question
from questions.services import Asker, regenerate_answer
from tests.factories import GameFactory, StaffFactory, UserFactory

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
    game = game or GameFactory(rules=True)
    conversation = start_conversation(user=user, game=game)
    question = create_question(game=game, text="Combien de cartes ?", user=user, conversation=conversation)
    question.mark_done(answer="Sept [Heat, p.2].", intent="rules", best_score=0.9, diagnostics={})
    return question


def regenerate(client, question):
    return client.post(reverse("oracle-chat-regenerate", args=[question.game.slug, question.pk]))


def regenerate_each_answer(client, question, times: int) -> list[int]:
    """Regenerate the turn `times`, each time once the previous new answer is written (while it
    is written, a click gives it back: test_chat_page)."""
    codes = []
    for _ in range(times):
        codes.append(regenerate(client, question).status_code)
        for again in Question.objects.filter(replaces__isnull=False, status=Question.Status.PENDING):
            again.mark_done(answer="Sept cartes [Heat, p.2].", intent="rules", best_score=0.9, diagnostics={})
    return codes


def test_regenerating_is_counted_as_asking_per_user(client, bob, settings, started):
    settings.RATE_LIMIT_ASK_USER, settings.RATE_LIMIT_ASK_IP = "2/m", ""
    question = answered_turn(bob)
    client.force_login(bob)

    codes = regenerate_each_answer(client, question, 3)

    assert codes == [200, 200, 429]
    assert len(started) == 2 and Question.objects.filter(replaces__isnull=False).count() == 2
    asked = client.post(reverse("oracle-chat-ask", args=[question.game.slug]), {"question": "Et après ?"})
    assert asked.status_code == 429 and "Trop de requêtes" in asked.content.decode()
    assert len(started) == 2


def test_regenerating_is_counted_per_address_for_visitors(settings, started):
    settings.RATE_LIMIT_ASK_USER, settings.RATE_LIMIT_ASK_IP = "", "2/m"
    settings.ASK_ALLOW_ANONYMOUS = True
    question = answered_turn(None)
    visitor = Client(REMOTE_ADDR="203.0.113.7")

    codes = regenerate_each_answer(visitor, question, 3)

    assert codes == [200, 200, 429]
    assert regenerate(Client(REMOTE_ADDR="203.0.113.8"), question).status_code == 200
    assert len(started) == 3


@pytest.mark.django_db(transaction=True)
def test_two_regenerations_of_one_turn_at_the_same_moment_make_one_new_answer(monkeypatch):
    player = UserFactory()
    question = answered_turn(player)
    together = threading.Barrier(2)
    # both requests have seen the turn answered and not regenerated; neither has written yet
    monkeypatch.setattr("questions.services.check_rate", lambda asker: together.wait(timeout=20))

    def click(_):
        try:
            return regenerate_answer(Asker(player), question.pk)
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        clicks = list(pool.map(click, range(2)))

    again = Question.objects.get(replaces=question)
    assert [asked.question.pk for asked in clicks] == [again.pk, again.pk]
    assert sorted(asked.fresh for asked in clicks) == [False, True]  # one answer to start
    assert Question.objects.count() == 2


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
