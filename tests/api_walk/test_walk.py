"""The walk of docs/api.md, step by step, against a real daphne server, as a script does it:
httpx, a token (issued with the account's password), never a session cookie.

The server runs ingestion tasks inline (Q_SYNC) and has no LLM: the answer is the
extractive one, streamed like any other."""

import json

import httpx
import pytest

from questions.models import Conversation, Question
from tests.factories import StaffFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"  # tests/factories.py


@pytest.fixture
def live_daphne_env():
    return {"Q_SYNC": "true", "ASK_HEARTBEAT_S": "8"}


def sse(response):
    """(event, data) pairs of a server-sent event stream (the function docs/api.md gives)."""
    name, data = "message", []
    for line in response.iter_lines():
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())


def ask(client, body) -> list[tuple[str, dict]]:
    with client.stream("POST", "/api/ask/stream", json=body) as response:
        assert response.status_code == 200
        return list(sse(response))


def test_a_script_walks_from_a_token_to_feedback_without_a_session(live_daphne, tmp_path):
    alice = StaffFactory(username="alice")  # uploading is for staff; the rest is any player's

    # 1. a token, with the account's username and password
    issued = httpx.post(f"{live_daphne}/api/tokens", json={"name": "walk"}, auth=("alice", PASSWORD))
    assert issued.status_code == 201
    client = httpx.Client(base_url=live_daphne, headers={"Authorization": f"Bearer {issued.json()['key']}"}, timeout=120)
    assert [t["name"] for t in client.get("/api/tokens").json()["items"]] == ["walk"]

    # 2. find a game (none yet: this walk uploads it)
    games = client.get("/api/games", params={"q": "heat"})
    assert games.status_code == 200 and games.json() == {"items": [], "count": 0}

    # 3. upload a rulebook (staff token, multipart)
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)
    with open(pdf, "rb") as handle:
        upload = client.post("/api/games/ingest", files={"pdf": ("heat.pdf", handle, "application/pdf")},
                             data={"new_game_name": "Heat", "language": "fr"})  # fmt: skip
    assert upload.status_code == 202, upload.text
    job = upload.json()
    games = client.get("/api/games", params={"q": "heat"}).json()
    assert [(g["id"], g["name"]) for g in games["items"]] == [(job["game_id"], "Heat")] and games["count"] == 1
    booklets = client.get(f"/api/games/{job['game_id']}").json()["booklets"]
    assert [b["name"] for b in booklets] == ["Heat"]

    # 4. follow the ingestion's events to the end
    with client.stream("GET", job["events_url"]) as response:
        assert response.status_code == 200
        events = list(sse(response))
    assert ("act", "read") in [(name, data.get("act")) for name, data in events]
    assert events[-1][0] == "done" and events[-1][1]["chunks"] > 0

    # 5. ask and read the stream; a first question starts a conversation
    body = {"gameId": job["game_id"], "question": "Combien de cartes distribue-t-on à chaque joueur ?"}
    events = ask(client, body)
    names = [name for name, _ in events]
    assert names[0] == "meta" and names[-1] == "done" and "token" in names
    question_id, conversation_id = events[0][1]["questionId"], events[0][1]["conversationId"]
    assert "".join(data["text"] for name, data in events if name == "token").strip()

    # ... and continue the conversation
    events = ask(client, {**body, "conversationId": conversation_id, "question": "Et qui commence ?"})
    assert events[0][1]["conversationId"] == conversation_id and events[-1][0] == "done"
    follow_up_id = events[0][1]["questionId"]
    assert Question.objects.get(pk=follow_up_id).history[0]["question"] == body["question"]

    # 6. poll
    polled = client.get(f"/api/ask/{follow_up_id}")
    assert polled.status_code == 200
    assert polled.json()["status"] == "done" and polled.json()["conversationId"] == conversation_id

    # 7. rate the answer
    rated = client.put(f"/api/ask/{question_id}/feedback", json={"rating": 1, "comment": "Clair."})
    assert rated.status_code == 200 and rated.json()["rating"] == 1

    # the conversation, as the chat would list it
    conversations = client.get("/api/conversations").json()
    assert conversations["count"] == 1 and conversations["items"][0]["id"] == conversation_id
    turns = client.get(f"/api/conversations/{conversation_id}/questions").json()["items"]
    assert [t["questionId"] for t in turns] == [follow_up_id, question_id]
    assert turns[1]["rating"] == 1
    assert Conversation.objects.get(pk=conversation_id).user == alice
    assert "sessionid" not in client.cookies


def test_the_python_walk_of_the_docs_is_valid_python_on_the_same_urls():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    script = text.split("```python\n", 1)[1].split("```", 1)[0]
    compile(script, "docs/api.md", "exec")
    for url in ("/api/tokens", "/api/games", "/api/games/ingest", "events_url", "/api/ask/stream", "/feedback"):
        assert url in script


@pytest.mark.django_db
def test_the_new_endpoints_are_in_the_openapi_schema(client):
    paths = client.get("/api/openapi.json").json()["paths"]
    for path in ("/api/conversations", "/api/conversations/{conversation_id}", "/api/conversations/{conversation_id}/questions",
                 "/api/ask/{question_id}/feedback", "/api/tokens", "/api/tokens/{token_id}", "/api/decks",
                 "/api/decks/validate"):  # fmt: skip
        assert path in paths
    assert "conversationId" in client.get("/api/openapi.json").json()["components"]["schemas"]["AskIn"]["properties"]
