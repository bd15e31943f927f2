"""GET /api/ingest/{job}/events: stored events replayed from any Last-Event-ID, then
followed live until `done` or `error`."""

import json
import threading
import time

import httpx
import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from games.index_state import mark_changed
from ingest.models import IngestJob
from tests.factories import ChunkFactory, IngestJobFactory


def parse(body: str) -> list[dict]:
    events = []
    for block in body.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            events.append({"id": int(fields["id"]), "event": fields["event"], "data": json.loads(fields["data"])})
    return events


def stream(user, url: str, **headers):
    async def read():
        client = AsyncClient()
        await client.aforce_login(user)
        response = await client.get(url, headers=headers)
        body = b"".join([chunk async for chunk in response.streaming_content])
        return response, body.decode()

    return async_to_sync(read)()


def finished_job() -> IngestJob:
    job = IngestJobFactory(status=IngestJob.Status.DONE)
    for act in ("read", "chunk", "embed"):
        job.emit("act", {"act": act, "state": "started", "done": 0, "total": 3})
        job.emit("act", {"act": act, "state": "done", "done": 3, "total": 3})
    job.emit("done", {"chunks": 3, "pages": 1, "ocr": 0, "stats": {}})
    return job


@pytest.mark.django_db
def test_stream_replays_every_event_after_the_last_event_id(alice):
    job = finished_job()
    ids = list(job.events.values_list("id", flat=True))

    for cut in range(len(ids)):
        response, body = stream(alice, f"/api/ingest/{job.pk}/events", **{"Last-Event-ID": str(ids[cut])})
        assert [e["id"] for e in parse(body)] == ids[cut + 1 :]

    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache" and response["X-Accel-Buffering"] == "no"


@pytest.mark.django_db
def test_stream_accepts_the_query_parameter_and_ends_with_the_final_event(alice):
    job = finished_job()
    first = job.events.first().id

    _, body = stream(alice, f"/api/ingest/{job.pk}/events?last_event_id={first}")

    events = parse(body)
    assert events[0]["id"] > first
    assert events[-1]["event"] == "done" and events[-1]["data"]["chunks"] == 3


@pytest.mark.django_db
def test_done_event_makes_the_booklet_searchable_in_the_web_process(alice):
    from runtime import components

    job = finished_job()
    ChunkFactory(game=job.game, dense=bytes(4 * 384), sparse={"indices": [1], "values": [1.0]})
    mark_changed(job.game.base_booklet.collection)

    stream(alice, f"/api/ingest/{job.pk}/events")

    assert components.vector_store().count(job.game.base_booklet.collection) == 1


@pytest.fixture
def live_daphne_env():
    return {"INGEST_SSE_HEARTBEAT_S": "0.3"}


@pytest.mark.slow
def test_live_stream_follows_a_running_job_with_heartbeats(live_daphne, alice, client):
    client.force_login(alice)
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)
    job.emit("act", {"act": "read", "state": "started", "done": 0, "total": 2})
    lines: list[str] = []

    def listen():
        cookies = {"sessionid": client.cookies["sessionid"].value}
        with httpx.stream("GET", f"{live_daphne}/api/ingest/{job.pk}/events", cookies=cookies, timeout=20) as response:
            lines.extend(response.iter_lines())

    reader = threading.Thread(target=listen)
    reader.start()
    time.sleep(1.5)  # idle: the server sends heartbeats meanwhile
    job.emit("act", {"act": "read", "state": "done", "done": 2, "total": 2})
    job.transition(IngestJob.Status.ERROR, error="PDF illisible")
    job.emit("error", {"message": "PDF illisible"})
    reader.join(timeout=20)

    assert not reader.is_alive()
    assert ": heartbeat" in lines
    events = parse("\n".join(lines))
    assert [(e["event"], e["data"].get("state")) for e in events] == [("act", "started"), ("act", "done"), ("error", None)]
