"""Who may ask and read answers: session users, API-token clients, anonymous visitors only
when ASK_ALLOW_ANONYMOUS is on. (Checked on the polling endpoint, which shares the stream
endpoint's authentication; the stream with a token is exercised in test_ask_stream.)"""

import uuid

import pytest

from questions.models import ApiToken, Question
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(bob):
    return QuestionFactory(user=bob, status=Question.Status.DONE, answer="Deux cartes.")


def url(question) -> str:
    return f"/api/ask/{question.pk}"


def test_anonymous_visitor_is_refused_by_default(client, answered):
    assert client.get(url(answered)).status_code == 401
    body = {"gameId": str(answered.game_id), "question": "Combien ?"}
    assert client.post("/api/ask/stream", body, content_type="application/json").status_code == 401


def test_anonymous_visitor_may_ask_when_the_site_allows_it(client, settings):
    settings.ASK_ALLOW_ANONYMOUS = True
    anonymous = QuestionFactory(user=None, status=Question.Status.DONE, answer="Oui.")
    assert client.get(url(anonymous)).status_code == 200


def test_signed_in_user_reads_their_answer_through_the_session(client, bob, answered):
    client.force_login(bob)
    response = client.get(url(answered))
    assert response.status_code == 200
    assert response.json()["answer"] == "Deux cartes."


def test_api_token_authenticates_its_user(client, bob, answered):
    token, key = ApiToken.issue(bob, "script")
    response = client.get(url(answered), headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert key not in (token.key_hash, token.prefix)  # only a hash is stored


def test_revoked_or_wrong_token_is_refused(client, bob, answered):
    token, key = ApiToken.issue(bob)
    assert client.get(url(answered), headers={"Authorization": "Bearer orc_not-a-key"}).status_code == 401
    ApiToken.objects.filter(pk=token.pk).update(revoked=True)
    assert client.get(url(answered), headers={"Authorization": f"Bearer {key}"}).status_code == 401


def test_another_player_cannot_read_bobs_answer(client, answered):
    from tests.factories import UserFactory

    client.force_login(UserFactory(username="dave"))
    assert client.get(url(answered)).status_code == 404


def test_poll_says_202_while_pending_and_404_when_unknown(client, bob):
    client.force_login(bob)
    pending = QuestionFactory(user=bob)
    response = client.get(url(pending))
    assert response.status_code == 202
    assert response.json() == {"questionId": str(pending.pk), "conversationId": None, "status": "pending"}
    assert client.get(f"/api/ask/{uuid.uuid4()}").status_code == 404


def test_failed_question_is_finished_with_its_message(client, bob):
    client.force_login(bob)
    failed = QuestionFactory(user=bob, status=Question.Status.ERROR, error="L'Oracle n'a pas pu répondre : boom")
    response = client.get(url(failed))
    assert response.status_code == 200
    assert response.json()["status"] == "error" and "boom" in response.json()["error"]
