"""The OpenAPI schema declares each status code of an operation once, and the refusals the
operations answer: a body's 400, the feedback's 403 and 409, a conversation's deletion's 403."""

import json

import pytest

from questions.models import Conversation
from tests.factories import GameFactory, QuestionFactory

pytestmark = pytest.mark.django_db


def test_no_operation_declares_a_status_code_twice(client):
    repeated = []

    def no_repeats(pairs):
        keys = [key for key, _value in pairs]
        repeated.extend(key for key in set(keys) if keys.count(key) > 1)
        return dict(pairs)

    schema = json.loads(client.get("/api/openapi.json").content, object_pairs_hook=no_repeats)

    assert repeated == []
    reading_a_body = [operation for operations in schema["paths"].values() for operation in operations.values()
                      if "requestBody" in operation]
    assert reading_a_body and all("400" in operation["responses"] for operation in reading_a_body)


@pytest.mark.parametrize("path, method, codes", [
    ("/api/ask/{question_id}/feedback", "put", {"403", "409", "422"}),
    ("/api/conversations/{conversation_id}", "delete", {"403"}),
])
def test_the_refusals_an_operation_answers_are_declared(client, path, method, codes):
    responses = client.get("/api/openapi.json").json()["paths"][path][method]["responses"]
    assert codes <= set(responses)
    assert all(responses[code]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut") for code in codes)


def test_those_refusals_are_what_the_operations_answer(admin, player, bob):
    answered, pending = QuestionFactory(user=bob, status="done", answer="Deux."), QuestionFactory(user=bob, status="pending")
    anonymous = Conversation.objects.create(game=GameFactory(), user=None, title="anonyme")
    rate = json.dumps({"rating": 1})

    assert admin.put(f"/api/ask/{answered.pk}/feedback", rate, content_type="application/json").status_code == 403
    assert player.put(f"/api/ask/{pending.pk}/feedback", rate, content_type="application/json").status_code == 409
    assert player.delete(f"/api/conversations/{anonymous.pk}").status_code == 403
