"""The ask stream's first event needs no database write and no retrieval (issue 29): `meta`
arrives while the question's save is held, before its answer starts; meanwhile its id answers
`GET /api/ask/<id>` with 202 (the process knows it is storing it), never 404. Once stored it is
answered; a process killed then leaves a stored question that the recovery sweep fails."""

import json
import threading
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient, Client
from django.utils import timezone

from questions import api, recovery
from questions.ask_flow import background
from questions.models import ApiToken, Question
from tests.factories import GameFactory, UserFactory
from tests.reliability.processes import wait_for

pytestmark = pytest.mark.django_db(transaction=True)  # the save pool writes from its own thread


@pytest.fixture
def held(monkeypatch):
    """The question's save waits for `save`; its answer records its start, then waits for `answer`."""
    gates = {"save": threading.Event(), "answer": threading.Event(), "answering": []}
    real_save = api.save_asked

    def save_asked(asked):
        gates["save"].wait(30)
        return real_save(asked)

    def answer_question(question_id, emit):
        gates["answering"].append(question_id)
        gates["answer"].wait(30)

    monkeypatch.setattr(api, "save_asked", save_asked)
    monkeypatch.setattr(background, "answer_question", answer_question)
    yield gates
    gates["save"].set()
    gates["answer"].set()


def first_event(headers, body, cookies=None) -> tuple[str, dict]:
    """The first event of the ask stream (`cookies`: a browser's, its session)."""

    async def read() -> str:
        browser = AsyncClient()
        if cookies is not None:
            browser.cookies = cookies
        response = await browser.post("/api/ask/stream", body, content_type="application/json", headers=headers)
        events = aiter(response.streaming_content)
        try:
            return (await anext(events)).decode()
        finally:
            await events.aclose()

    name_line, data_line = async_to_sync(read)().strip().splitlines()[:2]
    return name_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))


def test_meta_leaves_before_the_question_is_stored_and_before_its_answer_starts(bob, held, settings):
    game = GameFactory(rules=True)
    _token, key = ApiToken.issue(bob)
    headers = {"Authorization": f"Bearer {key}"}

    name, meta = first_event(headers, {"gameId": str(game.pk), "question": "Qui commence ?"})

    assert name == "meta" and set(meta) == {"questionId", "conversationId"}
    assert not Question.objects.exists() and held["answering"] == []  # nothing written, nothing answered yet
    polled = Client().get(f"/api/ask/{meta['questionId']}", headers=headers)
    assert polled.status_code == 202 and polled.json() == {"questionId": meta["questionId"],
                                                          "conversationId": meta["conversationId"], "status": "pending"}  # fmt: skip
    _, other_key = ApiToken.issue(UserFactory(username="eve"))
    assert Client().get(f"/api/ask/{meta['questionId']}", headers={"Authorization": f"Bearer {other_key}"}).status_code == 404

    held["save"].set()
    assert wait_for(lambda: held["answering"], 30, what="the answer started")  # only once the question is stored
    stored = Question.objects.get()
    assert str(stored.pk) == meta["questionId"] and str(stored.conversation_id) == meta["conversationId"]
    assert Client().get(f"/api/ask/{meta['questionId']}", headers=headers).status_code == 202
    # the process dies while answering (kill -9): nobody vouches any more, the sweep fails it: `error`, 200
    background.answers.release(stored.pk)
    Question.objects.update(created_at=timezone.now() - timedelta(seconds=settings.ASK_STALE_AFTER_S + 60))
    assert recovery.fail_stale_questions() == 1
    failed = Client().get(f"/api/ask/{meta['questionId']}", headers=headers)
    assert failed.status_code == 200 and failed.json()["status"] == "error" and failed.json()["error"]
