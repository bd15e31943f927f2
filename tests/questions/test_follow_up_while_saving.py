"""A follow-up that names the conversation `meta` just named, sent while the save pool is still
storing it (an ingest holding SQLite's writer lock delays that save by seconds): it waits for
the save and joins the conversation, never a 404; someone else gets the 404 at once; a save
that outlasts ASK_FOLLOW_UP_WAIT_S is a 409 that says to try again, not a 404."""

import contextlib
import json
import sqlite3
import threading
import time

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test import AsyncClient

from questions import api
from questions.ask_flow import background
from questions.models import ApiToken, Conversation, Question
from tests.factories import GameFactory, UserFactory
from tests.reliability.processes import wait_for

pytestmark = pytest.mark.django_db(transaction=True)  # the save pool writes from its own thread


@pytest.fixture
def answering(monkeypatch):
    """The questions whose answer started (the answer itself is not run)."""
    started = []
    monkeypatch.setattr(background, "answer_question", lambda question_id, emit: started.append(question_id))
    return started


@pytest.fixture
def held_save(monkeypatch, answering):
    """Every question's save waits for the returned event."""
    gate, real_save = threading.Event(), api.save_asked

    def save_asked(asked):
        gate.wait(30)
        return real_save(asked)

    monkeypatch.setattr(api, "save_asked", save_asked)
    yield gate
    gate.set()


def ask(key, game, text, conversation_id=None) -> tuple[int, str, dict]:
    """(status, first event's name, its data) of POST /api/ask/stream (`key` None: an
    anonymous visitor); a refusal: (status, "", body)."""
    body = {"gameId": str(game.pk), "question": text}
    if conversation_id:
        body["conversationId"] = conversation_id

    async def read():
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        response = await AsyncClient().post("/api/ask/stream", body, content_type="application/json", headers=headers)
        if not response.streaming:
            return response.status_code, "", json.loads(response.content)
        events = aiter(response.streaming_content)
        try:
            name_line, data_line = (await anext(events)).decode().strip().splitlines()[:2]
        finally:
            await events.aclose()
        return response.status_code, name_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))

    return async_to_sync(read)()


def after(seconds: float, release) -> None:
    threading.Timer(seconds, release).start()


def suppress_closed(release) -> None:
    with contextlib.suppress(sqlite3.ProgrammingError):  # the test ended first
        release()


def test_a_follow_up_sent_while_its_conversation_is_being_stored_waits_for_it(held_save, answering):
    game = GameFactory(rules=True)
    _, key = ApiToken.issue(UserFactory(username="bob"))
    _, meta = ask(key, game, "Qui commence ?")[1:]
    conversation_id = meta["conversationId"]
    assert not Conversation.objects.exists()  # its save is held

    after(0.5, held_save.set)
    status, name, follow_up = ask(key, game, "Et ensuite ?", conversation_id)

    assert (status, name, follow_up["conversationId"]) == (200, "meta", conversation_id)
    assert wait_for(lambda: len(answering) == 2, 30, what="both answers started")
    turns = Conversation.objects.get(pk=conversation_id).turns()
    assert [turn.text for turn in turns] == ["Qui commence ?", "Et ensuite ?"]


def test_an_anonymous_visitors_follow_up_waits_too_a_players_does_not(held_save, answering, settings):
    settings.ASK_ALLOW_ANONYMOUS = True
    game = GameFactory(rules=True)
    _, key = ApiToken.issue(UserFactory(username="bob"))
    conversation_id = ask(None, game, "Qui commence ?")[2]["conversationId"]

    assert ask(key, game, "Et ensuite ?", conversation_id)[0] == 404  # not bob's to write into, not waited for
    after(0.5, held_save.set)
    assert ask(None, game, "Et ensuite ?", conversation_id)[:2] == (200, "meta")
    assert wait_for(lambda: len(answering) == 2, 30, what="both answers started")
    assert Conversation.objects.get(pk=conversation_id).user is None


def test_another_asker_naming_it_meanwhile_gets_the_404_at_once(held_save, settings):
    game = GameFactory(rules=True)
    _, key = ApiToken.issue(UserFactory(username="bob"))
    _, eves_key = ApiToken.issue(UserFactory(username="eve"))
    conversation_id = ask(key, game, "Qui commence ?")[2]["conversationId"]

    started = time.monotonic()
    status, _, _ = ask(eves_key, game, "Et ensuite ?", conversation_id)

    assert status == 404 and time.monotonic() - started < settings.ASK_FOLLOW_UP_WAIT_S / 2  # no wait for her
    held_save.set()
    assert wait_for(lambda: Question.objects.count() == 1, 30, what="bob's question stored, hers not")


def test_a_save_that_outlasts_the_wait_is_a_409_to_try_again(held_save, settings):
    settings.ASK_FOLLOW_UP_WAIT_S = 0.3
    game = GameFactory(rules=True)
    _, key = ApiToken.issue(UserFactory(username="bob"))
    conversation_id = ask(key, game, "Qui commence ?")[2]["conversationId"]

    status, _, body = ask(key, game, "Et ensuite ?", conversation_id)

    assert status == 409 and "réessayez" in body["detail"]
    held_save.set()
    assert wait_for(lambda: Conversation.objects.filter(pk=conversation_id).exists(), 30, what="the first save")
    assert ask(key, game, "Et ensuite ?", conversation_id)[0] == 200  # tried again: it goes on
    assert wait_for(lambda: Question.objects.filter(conversation_id=conversation_id).count() == 2, 30,
                    what="the follow-up stored")  # fmt: skip


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's writer lock")
def test_a_follow_up_waits_while_another_process_holds_the_writer_lock(answering):
    game = GameFactory(rules=True)
    _, key = ApiToken.issue(UserFactory(username="bob"))
    ingest = sqlite3.connect(connection.settings_dict["NAME"], check_same_thread=False)
    ingest.execute("BEGIN IMMEDIATE")  # as an ingest's transaction does: every other writer waits
    try:
        conversation_id = ask(key, game, "Qui commence ?")[2]["conversationId"]
        after(1.0, lambda: suppress_closed(ingest.rollback))
        status, name, _ = ask(key, game, "Et ensuite ?", conversation_id)
    finally:
        ingest.rollback()
        ingest.close()

    assert (status, name) == (200, "meta")
    assert wait_for(lambda: Question.objects.filter(conversation_id=conversation_id).count() == 2, 30,
                    what="both questions stored")  # fmt: skip


def test_with_several_web_processes_a_follow_up_another_process_receives_waits_too(held_save, answering, settings):
    """Behind a load balancer (REDIS_URL), the follow-up may reach a web process that is not
    storing the conversation: the shared cache tells it who is, and it waits the same way."""
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"  # several web processes: the storing mark is said in the shared cache
    game = GameFactory(rules=True)
    bob = UserFactory(username="bob")
    _, key = ApiToken.issue(bob)
    _, eves_key = ApiToken.issue(UserFactory(username="eve"))
    conversation_id = ask(key, game, "Qui commence ?")[2]["conversationId"]
    assert wait_for(lambda: background.stored_elsewhere(conversation_id) == str(bob.pk), 10, what="the storing mark")
    background._storing.pop(conversation_id)  # this process now knows no more than another one would

    assert ask(eves_key, game, "Et ensuite ?", conversation_id)[0] == 404  # not hers: not waited for
    after(0.5, held_save.set)
    status, name, follow_up = ask(key, game, "Et ensuite ?", conversation_id)

    assert (status, name, follow_up["conversationId"]) == (200, "meta", conversation_id)
    assert wait_for(lambda: background.stored_elsewhere(conversation_id) is None, 10, what="the mark lowered")
    # both questions stored before the test's tables are emptied (PostgreSQL: a save still
    # running then deadlocks with the TRUNCATE)
    assert wait_for(lambda: len(answering) == 2, 30, what="both answers started")
