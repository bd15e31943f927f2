"""Issue 19, defect 10: errors a client can read. A 10 MB JSON body got an HTML « Bad Request
(400) »; a wrong or revoked token on the ask stream got 403 « CSRF check Failed »; `history:
[1]` was a 200 with empty turns; the 429 spoke English to a French UI; anonymous visitors saw
every game and booklet id; /api/health showed paths under var/ and backend errors to anyone."""

import json
import re

import pytest
from django.core.asgi import get_asgi_application
from django.test import Client

from oracle_site.body_limit import BodySizeLimit
from questions.models import ApiToken, Question
from tests.factories import GameFactory

from .test_body_limits import call

pytestmark = pytest.mark.django_db
MB = 1024 * 1024


def ask(client, game, **extra_fields):
    body = {"gameId": str(game.pk), "question": "Combien de cartes ?", **extra_fields}
    return client.post("/api/ask/stream", json.dumps(body), content_type="application/json")


def test_a_10_mb_json_body_gets_a_json_413(settings):
    app = BodySizeLimit(get_asgi_application())

    status, body, _ = call(app, "/api/ask/stream", [b"[" * MB] * 10, [(b"content-type", b"application/json"), (b"content-length", b"%d" % (10 * MB))])

    assert status == 413
    assert json.loads(body)["limit_bytes"] == settings.REQUEST_MAX_BYTES


@pytest.mark.parametrize("how", ["wrong", "revoked"])
def test_a_wrong_or_revoked_token_on_the_ask_stream_is_401_like_the_poll(bob, how):
    game = GameFactory()
    token, key = ApiToken.issue(bob)
    if how == "revoked":
        token.revoked = True
        token.save()
    else:
        key = "orc_not-a-real-key"
    client = Client(enforce_csrf_checks=True)  # as a real client: no CSRF exemption
    headers = {"Authorization": f"Bearer {key}"}

    stream = client.post("/api/ask/stream", json.dumps({"gameId": str(game.pk), "question": "Q ?"}), content_type="application/json", headers=headers)
    poll = client.get("/api/ask/00000000-0000-0000-0000-000000000000", headers=headers)

    assert stream.status_code == 401 and poll.status_code == 401
    assert "révoqué" in stream.json()["detail"]
    assert not Question.objects.exists()


def test_a_visitor_without_session_or_token_gets_401_not_a_csrf_error():
    game = GameFactory()
    response = ask(Client(enforce_csrf_checks=True), game)
    assert response.status_code == 401


def test_a_signed_in_session_still_needs_the_csrf_token(bob):
    player = Client(enforce_csrf_checks=True)
    player.force_login(bob)
    assert ask(player, GameFactory()).status_code == 403


@pytest.mark.parametrize("history", [[1], [None], ["question"]], ids=["int", "null", "string"])
def test_a_malformed_history_turn_is_a_422_saying_so(client, bob, history):
    client.force_login(bob)

    game = GameFactory()

    french = ask(client, game, history=history)
    english = client.post("/api/ask/stream", json.dumps({"gameId": str(game.pk), "question": "How many?", "history": history}),
                          content_type="application/json", headers={"Accept-Language": "en"})

    assert french.status_code == english.status_code == 422
    assert french.json()["errors"][0]["field"] == "history.0"
    assert "objet" in french.json()["detail"] and "object" in english.json()["detail"]
    assert not Question.objects.exists()


def test_a_well_formed_history_is_accepted(client, bob):
    client.force_login(bob)

    response = ask(client, GameFactory(rules=True), history=[{"question": "Combien de cartes ?", "answer": "Deux."}])

    assert response.status_code == 200, response.content[:300]  # the stream starts
    assert response["Content-Type"].startswith("text/event-stream")


@pytest.mark.parametrize("language, expected", [("fr", "Trop de requêtes : réessayez dans"), ("en", "Too many requests: try again in")])
def test_the_429_speaks_the_clients_language(client, bob, settings, language, expected):
    settings.RATE_LIMIT_ASK_USER = "1/m"
    client.force_login(bob)
    unknown = {"gameId": "00000000-0000-0000-0000-000000000000", "question": "Q ?"}
    post = lambda: client.post("/api/ask/stream", unknown, content_type="application/json", headers={"Accept-Language": language})  # noqa: E731
    assert post().status_code == 422

    refused = post()

    assert refused.status_code == 429
    assert refused.json()["detail"].startswith(expected)


def test_the_catalogue_is_private_by_default(client, bob, settings):
    game = GameFactory(rules=True, name="Les Aéronautes")

    anonymous = client.get("/")
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]

    settings.PUBLIC_CATALOGUE = True
    assert str(game.pk) in client.get("/").content.decode() or game.slug in client.get("/").content.decode()
    settings.PUBLIC_CATALOGUE = False
    client.force_login(bob)
    assert "Les Aéronautes" in client.get("/").content.decode()


def test_health_details_are_for_staff_only(client, alice, settings):
    anonymous = client.get("/api/health").json()
    assert all(check["detail"] == "" for check in anonymous["components"].values())
    public = json.dumps(anonymous)
    assert str(settings.BASE_DIR) not in public and "var/" not in public and str(settings.QDRANT_PATH) not in public

    client.force_login(alice)
    staff = client.get("/api/health").json()
    assert any(check["detail"] for check in staff["components"].values())
    assert set(staff["components"]) == set(anonymous["components"])
    assert re.search(r"\d", json.dumps(anonymous))  # statuses and latencies stay public
