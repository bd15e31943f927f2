"""POST /api/ask/stream with and without `conversationId`, through a real daphne server: a
first question starts a conversation that `meta` names; a follow-up takes the conversation's
booklets and last turns, never the client's history; another's conversation is a 404."""

import httpx
import pytest

from questions.models import ApiToken, Conversation, Question
from tests.factories import ExtensionFactory, GameFactory, StaffFactory, UserFactory
from tests.questions.sse_client import iter_events
from tests.rag.corpus import create_chunk_rows

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    return {"REPLAY_LLM_DELAY_S": "0", "ASK_HEARTBEAT_S": "8"}


@pytest.fixture
def course_folle():
    game = GameFactory(name="Course Folle", slug="course-folle")
    extension = ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain", language="en")
    ExtensionFactory(game=game, name="Tunnel", slug="tunnel", language="en")  # not chosen
    create_chunk_rows(game, extension)
    return game, extension


def bearer(user) -> dict:
    _, key = ApiToken.issue(user, "tests")
    return {"Authorization": f"Bearer {key}"}


def ask(base_url, headers, body) -> tuple[int, list]:
    with httpx.stream("POST", f"{base_url}/api/ask/stream", json=body, headers=headers, timeout=60) as response:
        if response.status_code != 200:
            response.read()
            return response.status_code, [response.json()]
        return 200, list(iter_events(response))


def test_a_first_question_starts_a_conversation_and_a_follow_up_continues_it(live_daphne, course_folle):
    game, extension = course_folle
    carol = UserFactory(username="carol")
    headers = bearer(carol)
    first_body = {"gameId": str(game.pk), "question": "Quels pneus peut-on choisir avant la course ?",
                  "extensions": [str(extension.pk)]}  # fmt: skip

    status, events = ask(live_daphne, headers, first_body)

    assert status == 200 and events[-1].name == "done"
    meta = events[0]
    assert meta.name == "meta" and set(meta.data) == {"questionId", "conversationId"}
    conversation = Conversation.objects.get(pk=meta.data["conversationId"])
    assert conversation.user == carol and conversation.title == first_body["question"]
    assert not conversation.every_booklet and list(conversation.extensions.all()) == [extension]
    polled = httpx.get(f"{live_daphne}/api/ask/{meta.data['questionId']}", headers=headers).json()
    assert polled["conversationId"] == str(conversation.pk)

    follow_up = {"gameId": str(game.pk), "question": "Et sous la pluie ?", "conversationId": str(conversation.pk),
                 "extensions": [], "history": [{"question": "inventée", "answer": "par le client"}]}  # fmt: skip
    status, events = ask(live_daphne, headers, follow_up)

    assert status == 200 and events[-1].name == "done"
    assert events[0].data["conversationId"] == str(conversation.pk)
    first, second = conversation.turns()
    assert str(second.pk) == events[0].data["questionId"]
    assert second.history == [{"question": first.text, "answer": first.answer}]  # not the client's
    assert list(second.extensions.all()) == [extension]  # the conversation's booklets, not `[]`
    listed = httpx.get(f"{live_daphne}/api/conversations/{conversation.pk}/questions", headers=headers).json()
    assert [t["question"] for t in listed["items"]] == ["Et sous la pluie ?", first.text]


def test_only_the_owner_asks_within_a_conversation_and_only_about_its_game(live_daphne, course_folle):
    game, extension = course_folle
    bob = UserFactory(username="bob")
    bobs = Conversation.objects.create(user=bob, game=game, title="Pneus")
    body = {"gameId": str(game.pk), "question": "Et sous la pluie ?", "conversationId": str(bobs.pk)}

    for intruder in (UserFactory(username="dave"), StaffFactory(username="alice")):
        status, [error] = ask(live_daphne, bearer(intruder), body)
        assert status == 404 and "detail" in error  # staff read it, never ask in it
    assert httpx.post(f"{live_daphne}/api/ask/stream", json=body, timeout=10).status_code == 401

    other_game = GameFactory(name="Azul", rules=True)
    status, [error] = ask(live_daphne, bearer(bob), {**body, "gameId": str(other_game.pk)})
    assert status == 422 and "detail" in error
    assert not Question.objects.exists()
