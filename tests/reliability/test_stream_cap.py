"""Issue 29: a web process keeps at most STREAMS_MAX_OPEN event streams open
(oracle_site/stream_cap.py). Past the cap a stream request is refused at once with a 503,
`Retry-After` and the API's JSON error in the client's language; pages are still served; a
slot freed by a closed stream serves the next one (real daphne, cap of 2)."""

from contextlib import ExitStack

import httpx
import pytest

from ingest.models import IngestJob
from questions.models import ApiToken
from tests.factories import GameFactory, IngestJobFactory

from .processes import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def live_daphne_env():
    return {"STREAMS_MAX_OPEN": "2", "STREAMS_RETRY_AFTER_S": "7"}


def first_event(lines) -> str:
    """The name of the first event on a stream's line iterator (kept by the caller: a
    discarded iterator closes the response, hence the connection)."""
    for line in lines:
        if line.startswith("event:"):
            return line.removeprefix("event:").strip()
    raise AssertionError("the stream ended before its first event")


def answer(url: str, **headers) -> httpx.Response:
    """The response to a GET, its body read unless it is a stream that was served (which
    would not end): the test fails on a served stream instead of waiting for it."""
    with httpx.stream("GET", url, headers=headers, timeout=30) as response:
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            response.read()
    return response


def test_streams_past_the_cap_are_refused_at_once_and_a_freed_slot_is_reused(live_daphne, alice):
    job = IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.RUNNING)
    job.emit("act", {"act": "read", "label": "Lecture", "state": "progress", "done": 1, "total": 5, "elapsed": 0.1})
    _, key = ApiToken.issue(alice, "cap")
    url = f"{live_daphne}/api/ingest/{job.pk}/events"
    auth = {"Authorization": f"Bearer {key}"}

    with httpx.Client(timeout=30) as client, ExitStack() as held:
        # The job runs on: both streams stay open after their first event.
        streams = [held.enter_context(client.stream("GET", url, headers=auth)) for _ in range(2)]
        lines = [s.iter_lines() for s in streams]
        assert [first_event(each) for each in lines] == ["act", "act"]

        refused = answer(url, **auth)
        assert refused.status_code == 503
        assert refused.headers["Retry-After"] == "7"
        assert refused.json() == {"detail": "Trop de flux ouverts sur ce serveur : réessayez dans 7 s.", "errors": []}
        english = answer(url, **auth, **{"Accept-Language": "en"})
        assert english.json()["detail"] == "Too many open streams on this server: try again in 7 s."

        # The chat's answer events are counted too; refused as a short page outside /api/.
        chat = answer(f"{live_daphne}/jeux/heat/questions/00000000-0000-0000-0000-000000000000/events")
        assert chat.status_code == 503 and "Trop de flux ouverts" in chat.text

        # Pages and the other API routes are not streams: served while the cap is reached.
        assert httpx.get(f"{live_daphne}/login/", timeout=30).status_code == 200
        assert httpx.get(f"{live_daphne}/api/ingest/{job.pk}", headers=auth, timeout=30).status_code == 200

        streams[0].close()  # the server sees the client go and frees the slot

        def served_again():
            response = held.enter_context(client.stream("GET", url, headers=auth))
            if response.status_code == 200:
                lines.append(response.iter_lines())
                return first_event(lines[-1]) == "act"
            response.close()
            return False

        assert wait_for(served_again, 30, interval=0.2, what="a stream served in the freed slot")
        assert answer(url, **auth).status_code == 503, "two streams are open again"
