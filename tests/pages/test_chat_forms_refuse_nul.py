"""The chat's forms refuse what PostgreSQL cannot store, as the API does (runtime/api_input.py):
the NUL character in a question, a card mention or a feedback comment, and a lone surrogate in
the card mentions' JSON. Each was stored silently on SQLite and was a 500 on PostgreSQL."""

import json

import pytest
from django.urls import reverse

from questions.models import Question
from tests.factories import GameFactory, QuestionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(monkeypatch):
    monkeypatch.setattr("questions.views.start_answering", lambda *a, **k: None)


@pytest.mark.parametrize("fields", [
    {"question": "Combien\x00 de cartes ?"},
    {"question": "Combien de cartes ?", "card_mentions": json.dumps(["Opt\x00"])},
    {"question": "Combien de cartes ?", "card_mentions": '["\\ud800"]'},
])  # fmt: skip
def test_a_question_the_database_could_not_store_is_refused_with_a_400(client, bob, started, fields):
    game = GameFactory(rules=True)
    client.force_login(bob)

    response = client.post(reverse("oracle-chat-ask", args=[game.slug]), fields)

    assert response.status_code == 400, response.content[:300]
    assert not Question.objects.exists()


def test_a_feedback_comment_holding_nul_is_refused_and_the_answer_keeps_its_feedback(client, bob):
    question = QuestionFactory(user=bob, status="done", answer="Deux.", rating=-1, feedback_comment="Vague.")
    client.force_login(bob)

    response = client.post(reverse("oracle-chat-feedback", args=[question.game.slug, question.pk]),
                           {"rating": "1", "comment": "bien\x00"})  # fmt: skip

    assert response.status_code == 400
    question.refresh_from_db()
    assert (question.rating, question.feedback_comment) == (-1, "Vague.")
