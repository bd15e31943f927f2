"""The job page's event stream after a relaunch: a job that failed (or was cancelled) and was
relaunched is followed to its new run's end, not stopped at the old `error`; and every event
says when it was stored, so a page opened later counts the time left down from then."""

from datetime import datetime

import pytest
from asgiref.sync import async_to_sync

from games.index_state import mark_changed
from ingest.models import IngestJob
from ingest.progress import Relay
from tests.factories import ChunkFactory, IngestJobFactory
from tests.ingest.test_progress import parse, stream

pytestmark = pytest.mark.django_db

FAILED = {"message": "L'étape « Lecture » a échoué : boom.", "messages": {"fr": "L'étape « Lecture » a échoué : boom.", "en": "The « Reading » step failed: boom."}}


def relaunched_job(*, then_done: bool) -> IngestJob:
    """Failed in its first run, relaunched (`retry`), then running again or done."""
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)
    job.emit("act", {"act": "read", "state": "started", "done": 0, "total": 2})
    job.emit("error", FAILED)
    job.emit("retry", {})
    job.emit("act", {"act": "read", "state": "progress", "done": 1, "total": 2})
    if then_done:
        job.emit("done", {"chunks": 3, "pages": 2, "ocr": 0, "stats": {}})
        job.transition(IngestJob.Status.DONE)
    return job


def test_a_relaunched_job_streams_its_new_run_to_its_done_and_makes_the_booklet_searchable(alice):
    from runtime import components

    job = relaunched_job(then_done=True)
    ChunkFactory(game=job.game, dense=bytes(4 * 384), sparse={"indices": [1], "values": [1.0]})
    mark_changed(job.game.base_booklet.collection)

    _, body = stream(alice, f"/api/ingest/{job.pk}/events")

    events = parse(body)
    assert [e["event"] for e in events] == ["act", "error", "retry", "act", "done"]
    assert events[1]["data"]["relaunched"] is True  # the page goes on past it
    assert "relaunched" not in events[-1]["data"]
    assert components.vector_store().count(job.game.base_booklet.collection) == 1  # `done` synced the index


def test_a_replay_from_before_the_old_error_goes_on_to_the_new_run(alice):
    job = relaunched_job(then_done=True)
    act_id = job.events.first().pk

    _, body = stream(alice, f"/api/ingest/{job.pk}/events", **{"Last-Event-ID": str(act_id)})

    assert [e["event"] for e in parse(body)] == ["error", "retry", "act", "done"]


def test_a_job_running_again_after_a_relaunch_is_still_followed():
    job = relaunched_job(then_done=False)
    relay = Relay(job.pk, 0, None)

    sent = async_to_sync(relay.stored)()

    assert [chunk.split("\n")[1] for chunk in sent] == ["event: act", "event: error", "event: retry", "event: act"]
    assert not relay.ended  # it relays the new run's live events


def test_a_failed_job_that_was_not_relaunched_ends_at_its_error(alice):
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)
    job.emit("act", {"act": "read", "state": "started", "done": 0, "total": 2})
    job.transition(IngestJob.Status.ERROR, error="boom")
    job.emit("error", FAILED)

    _, body = stream(alice, f"/api/ingest/{job.pk}/events")

    events = parse(body)
    assert [e["event"] for e in events] == ["act", "error"]
    assert "relaunched" not in events[-1]["data"]


def test_every_streamed_event_says_when_it_was_stored(alice):
    job = relaunched_job(then_done=True)

    _, body = stream(alice, f"/api/ingest/{job.pk}/events")

    stored = {row.pk: row.created_at for row in job.events.all()}
    for event in parse(body):
        at = datetime.fromisoformat(event["data"]["at"])
        assert abs((at - stored[event["id"]]).total_seconds()) < 0.001
