"""Issue 29: an open event stream costs the web process no thread. Django ran each request's
synchronous steps on a thread of the request's own, kept until its response ended, so every
open stream parked one; the streams now share STREAMS_SYNC_THREADS (oracle_site/stream_cap.py).
Thirty streams held open on a real daphne leave its thread count where one stream left it,
and every one of them keeps being served. Django's own middleware, whose hooks now run in
the event loop, still guards the requests daphne serves."""

import re
from contextlib import ExitStack

import httpx
import pytest
from django.test import Client

from ingest.models import IngestJob
from questions.models import ApiToken
from tests.factories import GameFactory, IngestJobFactory
from tests.support.daphne import threads_of

from .test_stream_cap import first_event

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHARED = 2
STREAMS = 30


@pytest.fixture
def live_daphne_env():
    return {"STREAMS_SYNC_THREADS": str(SHARED), "INGEST_SSE_HEARTBEAT_S": "1"}


def test_thirty_open_streams_share_the_same_few_threads(live_daphne, alice):
    job = IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.RUNNING)
    job.emit("act", {"act": "read", "label": "Lecture", "state": "progress", "done": 1, "total": 5, "elapsed": 0.1})
    _, key = ApiToken.issue(alice, "threads")
    url = f"{live_daphne}/api/ingest/{job.pk}/events"

    with httpx.Client(timeout=30, limits=httpx.Limits(max_connections=STREAMS + 5)) as client, ExitStack() as held:
        def open_stream():
            response = held.enter_context(client.stream("GET", url, headers={"Authorization": f"Bearer {key}"}))
            assert response.status_code == 200
            lines = response.iter_lines()
            assert first_event(lines) == "act"
            return lines

        first = [open_stream() for _ in range(2)]  # the shared pool has started its threads
        before = threads_of(live_daphne)
        streams = first + [open_stream() for _ in range(STREAMS)]
        during = threads_of(live_daphne)

        assert during - before <= SHARED, f"{STREAMS} more open streams took {during - before} more threads"
        # Each stream is still alive: its heartbeat (every second) comes through.
        for lines in streams:
            assert next(line for line in lines if line.startswith((":", "event:")))


def test_djangos_own_middleware_still_guards_requests_served_by_daphne(live_daphne, bob):
    """Security, CSRF and X-Frame-Options run their hooks in the event loop under daphne
    (oracle_site/async_middleware.py): their headers are still set, a session's POST without
    its CSRF token is still refused (a page's form, read in a thread; the API's own check),
    and goes through with it."""
    game = GameFactory(rules=True, name="Heat")
    client = Client()
    client.force_login(bob)
    with httpx.Client(base_url=live_daphne, cookies={"sessionid": client.cookies["sessionid"].value}, timeout=30) as player:
        page = player.get(f"/jeux/{game.slug}/")
        assert page.status_code == 200
        assert page.headers["X-Frame-Options"] == "DENY" and page.headers["X-Content-Type-Options"] == "nosniff"
        token = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)

        assert player.post(f"/jeux/{game.slug}/ask", data={"question": "Qui commence ?"}).status_code == 403
        body = {"gameId": str(game.pk), "question": "Qui commence ?", "extensions": ["00000000-0000-0000-0000-000000000000"]}
        assert player.post("/api/ask/stream", json=body).status_code == 403
        let_in = player.post("/api/ask/stream", json=body, headers={"X-CSRFToken": token})
        assert let_in.status_code == 422  # past CSRF: the unknown booklet is refused, nothing streams
