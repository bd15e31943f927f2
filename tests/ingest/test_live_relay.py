"""The ingest SSE relay on the in-memory channel layer, in one process: it subscribes to the
job's group, replays the stored events after Last-Event-ID, relays what is published live
(skipping what it already sent) and ends after the final event; what never reaches it live
(a worker in another process, on the embedded default) is read back at the fallback interval."""

import asyncio
import threading
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import channel_layers
from django.db import transaction

from ingest.models import IngestEvent, IngestJob
from ingest.progress import Relay, event_stream
from runtime import broadcast
from tests.factories import IngestJobFactory
from tests.ingest.test_progress import parse

NEVER = 3600.0  # a fallback or heartbeat that would make the test hang if the relay relied on it


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


def act(job, n):
    return job.emit("act", {"act": "read", "state": "progress", "done": n, "total": 10})


def run_stream(job, worker, *, last_event_id=0, fallback_poll_s=NEVER, heartbeat_s=NEVER, timeout=20.0):
    """Read the stream of `job`; once the relay has read the stored events, run `worker(job)`
    in a thread (the ingest worker: its own database connection, publishing from outside the
    event loop)."""
    relay = Relay(job.pk, last_event_id, None)
    thread = threading.Thread(target=worker, args=(job,))

    async def start_worker_after_the_replay():
        while not relay.reads:
            await asyncio.sleep(0.01)
        thread.start()

    async def read():
        starter = asyncio.create_task(start_worker_after_the_replay())
        chunks = [chunk async for chunk in event_stream(job.pk, last_event_id, heartbeat_s=heartbeat_s,
                                                         fallback_poll_s=fallback_poll_s, relay=relay)]
        await starter
        await sync_to_async(thread.join, thread_sensitive=False)()
        return "".join(chunks)

    body = async_to_sync(asyncio.wait_for)(read(), timeout)
    return parse(body), body, relay


def finish(job):
    """As ingest.coordinator.finish: the status and its final event in one transaction (a
    reader seeing the job done without its `done` event would end the stream early)."""
    with transaction.atomic():
        job.transition(IngestJob.Status.DONE)
        return job.emit("done", {"chunks": 1, "pages": 1, "ocr": 0, "stats": {}})


@pytest.mark.django_db(transaction=True)
def test_stream_replays_stored_events_then_relays_live_ones_without_reading_again():
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)
    stored = [act(job, 1).pk, act(job, 2).pk]

    def worker(job):
        for n in range(3, 6):
            act(job, n)
        finish(job)

    events, _, relay = run_stream(job, worker)

    ids = [e["id"] for e in events]
    assert ids[:2] == stored and ids == list(job.events.values_list("id", flat=True))
    assert [e["data"].get("done") for e in events[:-1]] == [1, 2, 3, 4, 5] and events[-1]["event"] == "done"
    assert relay.reads == 1  # the replay; then every event arrived live: nothing read the table again


@pytest.mark.django_db(transaction=True)
def test_stream_starts_after_the_last_event_id_and_skips_events_it_already_sent():
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)
    first, second = act(job, 1), act(job, 2)
    group = broadcast.ingest_group(job.pk)

    def worker(job):
        # Published between the relay's subscription and its read: heard again, live.
        broadcast.publish(group, "act", second.data, event_id=second.pk)
        broadcast.publish(group, "act", first.data, event_id=first.pk)
        act(job, 3)
        finish(job)

    events, _, _ = run_stream(job, worker, last_event_id=first.pk)

    assert [e["data"].get("done") for e in events] == [2, 3, None]
    assert len({e["id"] for e in events}) == len(events)


@pytest.mark.django_db(transaction=True)
def test_an_event_lost_on_the_way_is_read_back_and_sent_in_order():
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)

    def worker(job):
        act(job, 1)
        IngestEvent.objects.create(job=job, event="warning", data={"message": "page 3 peu lisible"})  # never published
        act(job, 2)
        finish(job)

    events, _, _ = run_stream(job, worker)

    assert [e["event"] for e in events] == ["act", "warning", "act", "done"]
    assert [e["id"] for e in events] == sorted(e["id"] for e in events)


@pytest.mark.django_db(transaction=True)
def test_events_of_a_worker_in_another_process_arrive_at_the_fallback_interval():
    """The embedded default: the in-memory layer does not cross processes; rows written
    without a publication stand for the worker's events."""
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)

    def worker(job):
        time.sleep(0.3)
        IngestEvent.objects.create(job=job, event="act", data={"act": "read", "state": "done", "done": 1, "total": 1})
        job.transition(IngestJob.Status.DONE)
        IngestEvent.objects.create(job=job, event="done", data={"chunks": 1})

    started = time.monotonic()
    events, body, relay = run_stream(job, worker, fallback_poll_s=0.2, heartbeat_s=0.25)

    assert [e["event"] for e in events] == ["act", "done"]
    assert time.monotonic() - started < 5
    assert relay.reads >= 2 and ": heartbeat" in body


@pytest.mark.django_db(transaction=True)
def test_a_job_that_ended_without_a_final_event_ends_the_stream():
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)

    def worker(job):
        job.transition(IngestJob.Status.CANCELLED)

    events, _, _ = run_stream(job, worker, fallback_poll_s=0.1)

    assert events == []


@pytest.mark.django_db(transaction=True)
def test_when_the_layer_fails_the_stream_goes_on_from_the_stored_events(monkeypatch):
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)

    async def broken(self, timeout=None):
        raise ConnectionError("Redis est parti")

    monkeypatch.setattr(broadcast.Subscription, "receive", broken)

    def worker(job):
        act(job, 1)
        finish(job)

    events, _, _ = run_stream(job, worker, fallback_poll_s=0.1)

    assert [e["event"] for e in events] == ["act", "done"]
