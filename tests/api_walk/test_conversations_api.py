"""/api/conversations… and PUT /api/ask/{id}/feedback: a player's conversations (newest
first) and turns (the last first); staff see everyone's; another player never sees them
(404), a visitor is asked to sign in (401)."""

import uuid

import pytest

from questions.ask_flow.intake import create_question
from questions.conversations import start_conversation
from questions.models import ApiToken, Conversation, Question
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db


def answered(conversation, text, answer="Deux cartes.", **fields):
    question = create_question(game=conversation.game, text=text, user=conversation.user, conversation=conversation, **fields)
    question.mark_done(answer=answer, intent="rules", best_score=0.9, diagnostics={})
    return question


@pytest.fixture
def dave(db):
    """Another player."""
    return UserFactory(username="dave")


@pytest.fixture
def bobs(bob):
    """Bob's conversation about Heat: two answered turns."""
    conversation = start_conversation(user=bob, game=GameFactory(name="Heat"), title="Pioche")
    answered(conversation, "Combien de cartes pioche-t-on ?")
    answered(conversation, "Et au premier tour ?", "Sept cartes.")
    return conversation


def bearer(user) -> dict:
    _, key = ApiToken.issue(user, "tests")
    return {"Authorization": f"Bearer {key}"}


def test_a_player_lists_their_conversations_most_recent_first_with_a_token(client, bob):
    game = GameFactory()
    older = start_conversation(user=bob, game=game, title="Ancienne")
    newer = start_conversation(user=bob, game=game, title="Récente")
    answered(older, "Une relance")  # asking again moves a conversation to the top
    start_conversation(user=UserFactory(), game=game, title="D'un autre")

    response = client.get("/api/conversations", headers=bearer(bob))

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    assert [c["title"] for c in body["items"]] == ["Ancienne", "Récente"]
    assert body["items"][1]["id"] == str(newer.pk) and body["items"][1]["gameId"] == str(game.pk)
    assert body["items"][0]["user"] == "bob" and body["items"][0]["everyBooklet"] is True


def test_the_list_is_paginated_and_filtered_by_game(client, bob):
    heat, azul = GameFactory(), GameFactory()
    for n in range(5):
        start_conversation(user=bob, game=heat, title=f"Heat {n}")
    start_conversation(user=bob, game=azul, title="Azul")
    client.force_login(bob)

    page = client.get("/api/conversations?limit=2&offset=2").json()
    assert page["count"] == 6 and len(page["items"]) == 2
    only_azul = client.get(f"/api/conversations?gameId={azul.pk}").json()
    assert [c["title"] for c in only_azul["items"]] == ["Azul"]


def test_a_conversations_questions_come_last_turn_first_a_regenerated_one_in_its_place(client, bob, bobs):
    first = bobs.turns().first()
    answered(bobs, first.text, "Deux cartes, page 3.", replaces=first)  # asked last, about the first turn

    response = client.get(f"/api/conversations/{bobs.pk}/questions", headers=bearer(bob))

    assert response.status_code == 200
    turns = response.json()["items"]
    assert [t["answer"] for t in turns] == ["Sept cartes.", "Deux cartes, page 3."]
    assert [t["position"] for t in turns] == [2, 1]
    assert turns[1]["replaces"] == str(first.pk) and turns[1]["status"] == "done"
    assert response.json()["count"] == 2


def test_detail_names_the_game_and_the_chosen_booklets(client, bob, bobs):
    response = client.get(f"/api/conversations/{bobs.pk}", headers=bearer(bob))
    assert response.status_code == 200
    assert response.json()["gameName"] == "Heat" and response.json()["title"] == "Pioche"


def test_another_player_never_sees_bobs_conversation(client, dave, bobs):
    headers = bearer(dave)
    assert client.get("/api/conversations", headers=headers).json() == {"items": [], "count": 0}
    for url in (f"/api/conversations/{bobs.pk}", f"/api/conversations/{bobs.pk}/questions"):
        response = client.get(url, headers=headers)
        assert response.status_code == 404 and "detail" in response.json()
    assert client.delete(f"/api/conversations/{bobs.pk}", headers=headers).status_code == 404
    assert Conversation.objects.filter(pk=bobs.pk).exists()


def test_staff_see_and_may_delete_every_conversation(client, alice, bobs):
    headers = bearer(alice)
    assert [c["id"] for c in client.get("/api/conversations", headers=headers).json()["items"]] == [str(bobs.pk)]
    assert client.get(f"/api/conversations/{bobs.pk}/questions", headers=headers).json()["count"] == 2
    assert client.get(f"/api/conversations/{bobs.pk}", headers=headers).json()["user"] == "bob"
    assert client.delete(f"/api/conversations/{bobs.pk}", headers=headers).status_code == 204
    assert not Conversation.objects.exists() and not Question.objects.exists()


def test_a_player_deletes_their_conversation_with_its_questions(client, bob, bobs):
    response = client.delete(f"/api/conversations/{bobs.pk}", headers=bearer(bob))
    assert response.status_code == 204
    assert not Question.objects.filter(conversation_id=bobs.pk).exists()
    assert client.get(f"/api/conversations/{bobs.pk}", headers=bearer(bob)).status_code == 404


def test_a_visitor_is_asked_to_sign_in(client, bobs):
    question = bobs.turns().first()
    requests = [
        ("get", "/api/conversations"), ("get", f"/api/conversations/{bobs.pk}"),
        ("get", f"/api/conversations/{bobs.pk}/questions"), ("delete", f"/api/conversations/{bobs.pk}"),
    ]  # fmt: skip
    for method, url in requests:
        assert getattr(client, method)(url).status_code == 401, url
    feedback = client.put(f"/api/ask/{question.pk}/feedback", {"rating": 1}, content_type="application/json")
    assert feedback.status_code == 401
    assert client.get("/api/conversations", headers={"Authorization": "Bearer orc_wrong"}).status_code == 401


def test_when_asking_is_open_a_visitor_reaches_an_anonymous_conversation_by_its_id_only(client, settings, bobs):
    settings.ASK_ALLOW_ANONYMOUS = True
    anonymous = start_conversation(user=None, game=GameFactory(), title="Sans compte")
    question = answered(anonymous, "Qui commence ?")
    assert client.get("/api/conversations").json()["count"] == 0  # nothing listed
    assert client.get(f"/api/conversations/{anonymous.pk}").status_code == 200
    assert client.get(f"/api/conversations/{bobs.pk}").status_code == 404
    assert client.put(f"/api/ask/{question.pk}/feedback", {"rating": -1}, content_type="application/json").status_code == 200
    response = client.delete(f"/api/conversations/{anonymous.pk}")
    assert response.status_code == 403 and "detail" in response.json()  # only staff delete it


def test_unknown_conversation_is_404(client, bob):
    assert client.get(f"/api/conversations/{uuid.uuid4()}", headers=bearer(bob)).status_code == 404


# Feedback


def test_the_asker_rates_an_answer_with_a_comment_and_may_withdraw_it(client, bob, bobs):
    question = bobs.turns().last()
    url = f"/api/ask/{question.pk}/feedback"

    response = client.put(url, {"rating": -1, "comment": " Il manque la page. "}, content_type="application/json",
                          headers=bearer(bob))  # fmt: skip

    assert response.status_code == 200
    assert response.json()["rating"] == -1 and response.json()["comment"] == "Il manque la page."
    question.refresh_from_db()
    assert (question.rating, question.feedback_comment) == (-1, "Il manque la page.") and question.feedback_at
    listed = client.get(f"/api/conversations/{bobs.pk}/questions", headers=bearer(bob)).json()["items"][0]
    assert (listed["rating"], listed["feedbackComment"]) == (-1, "Il manque la page.")

    client.put(url, {"rating": None}, content_type="application/json", headers=bearer(bob))
    question.refresh_from_db()
    assert question.rating is None and question.feedback_at is None


def test_feedback_is_one_of_up_down_or_null(client, bob, bobs):
    url = f"/api/ask/{bobs.turns().last().pk}/feedback"
    response = client.put(url, {"rating": 5}, content_type="application/json", headers=bearer(bob))
    assert response.status_code == 422 and "detail" in response.json()


def test_a_pending_answer_cannot_be_rated_yet(client, bob, bobs):
    pending = create_question(game=bobs.game, text="Et après ?", user=bob, conversation=bobs)
    response = client.put(f"/api/ask/{pending.pk}/feedback", {"rating": 1}, content_type="application/json",
                          headers=bearer(bob))  # fmt: skip
    assert response.status_code == 409 and "detail" in response.json()


def test_others_cannot_rate_bobs_answer_staff_read_it_but_do_not_rate_it(client, dave, alice, bobs):
    question = bobs.turns().last()
    url = f"/api/ask/{question.pk}/feedback"
    body = {"rating": 1}
    assert client.put(url, body, content_type="application/json", headers=bearer(dave)).status_code == 404
    assert client.put(url, body, content_type="application/json", headers=bearer(alice)).status_code == 403
    question.refresh_from_db()
    assert question.rating is None
