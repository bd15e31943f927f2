"""POST /api/ask/stream end to end, through a real daphne server and real HTTP."""

import time

import httpx
import pytest

from questions.models import ApiToken
from tests.factories import ExtensionFactory, GameFactory, UserFactory
from tests.questions.sse_client import iter_events
from tests.rag.corpus import create_chunk_rows
from tests.support.replay_llm import recorded_deltas

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    return {"REPLAY_LLM_DELAY_S": "0.05", "ASK_HEARTBEAT_S": "8"}


@pytest.fixture
def course_folle():
    game = GameFactory(name="Course Folle", slug="course-folle")
    extension = ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain", language="en")
    create_chunk_rows(game, extension)
    return game, extension


@pytest.fixture
def token():
    _, key = ApiToken.issue(UserFactory(username="carol"), "tests")
    return key


def ask(base_url, token, game, extension, question, **extra):
    body = {"gameId": str(game.pk), "question": question, "extensions": [str(extension.pk)], **extra}
    return httpx.stream(
        "POST", f"{base_url}/api/ask/stream", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=60
    )


def test_stream_sends_meta_phases_context_tokens_diagnostics_done_in_order(live_daphne, course_folle, token):
    game, extension = course_folle
    with ask(live_daphne, token, game, extension, "Quels pneus peut-on choisir avant la course ?") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        events = list(iter_events(response))
    names = [e.name for e in events]
    assert names[0] == "meta"
    assert names[-1] == "done"
    first_token = names.index("token")
    assert names.index("phase") < names.index("context") < first_token < names.index("diagnostics") < names.index("done")
    phases = [e.data["label"] for e in events if e.name == "phase"]
    assert phases[:2] == ["L'Oracle pèse votre question", "L'Oracle plonge dans le grimoire"]
    context = next(e.data for e in events if e.name == "context")
    top = context["chunks"][0]
    assert (top["booklet"], top["page_start"], top["is_extension"]) == ("Heavy Rain", 2, True)
    assert context["mentionedCards"] == [] and context["stickyMentionedCards"] == []
    tokens = "".join(e.data["text"] for e in events if e.name == "token")
    assert tokens == "".join(recorded_deltas())
    done = events[-1].data
    question_id = events[0].data["questionId"]
    assert done == {"fullAnswer": tokens, "questionId": question_id, "bestScore": done["bestScore"],
                    "stickyCardMentions": []}  # no card mentioned: none kept for the next turn
    diagnostics = next(e.data for e in events if e.name == "diagnostics")
    assert {"retrieval", "answer"} <= set(diagnostics["timings"])
    assert diagnostics["bestScore"] == done["bestScore"] > 0.8
    assert diagnostics["chunks"][0]["booklet"] == "Heavy Rain"

    polled = httpx.get(f"{live_daphne}/api/ask/{question_id}", headers={"Authorization": f"Bearer {token}"})
    assert polled.status_code == 200
    assert polled.json()["answer"] == tokens and polled.json()["intent"] == "rules"


def test_meta_arrives_before_the_answer_is_ready(live_daphne, course_folle, token):
    game, extension = course_folle
    started = time.monotonic()
    with ask(live_daphne, token, game, extension, "Combien de cartes pioche le joueur actif ?") as response:
        events = iter_events(response)
        meta = next(events)
        rest = list(events)
    assert meta.name == "meta" and meta.data["questionId"]
    # meta is sent before retrieval and the answer: it comes well before the final event
    assert meta.at - started < rest[-1].at - started
    assert rest[-1].name == "done"


@pytest.mark.parametrize("live_daphne_env", [{"ASK_HEARTBEAT_S": "0.2", "REPLAY_LLM_DELAY_S": "0.7"}])
def test_heartbeats_keep_a_slow_answer_alive(live_daphne, course_folle, token):
    game, extension = course_folle
    with ask(live_daphne, token, game, extension, "Comment gagne-t-on la partie ?") as response:
        names = [e.name for e in iter_events(response)]
    between_tokens = names[names.index("token") : len(names) - names[::-1].index("token")]
    assert "heartbeat" in between_tokens
    assert names[-1] == "done"


@pytest.mark.parametrize("live_daphne_env", [{"REPLAY_LLM_DELAY_S": "0.4", "REPLAY_LLM_REPEAT": "3"}])
def test_answer_is_persisted_when_the_client_disconnects_mid_answer(live_daphne, course_folle, token):
    game, extension = course_folle
    headers = {"Authorization": f"Bearer {token}"}
    with ask(live_daphne, token, game, extension, "Que se passe-t-il en cas de surchauffe ?") as response:
        events = iter_events(response)
        question_id = next(events).data["questionId"]
        for event in events:
            if event.name == "token":
                break
    # the client is gone; the answer is still pending, then done and stored
    pending = httpx.get(f"{live_daphne}/api/ask/{question_id}", headers=headers)
    assert pending.status_code == 202
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        polled = httpx.get(f"{live_daphne}/api/ask/{question_id}", headers=headers)
        if polled.status_code == 200:
            break
        time.sleep(0.3)
    assert polled.status_code == 200
    assert polled.json()["status"] == "done"
    assert polled.json()["answer"] == "".join(recorded_deltas() * 3)
