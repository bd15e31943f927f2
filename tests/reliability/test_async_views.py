"""Async views must not touch the database lazily (Django refuses it in an event loop: a 500).
Found by the scaled test: following an expansion's ingest failed, the base game's did not."""

import pytest
from asgiref.sync import async_to_sync

from ingest.models import IngestJob
from tests.factories import ExtensionFactory, GameFactory

pytestmark = pytest.mark.django_db


async def read(response) -> bytes:
    return b"".join([chunk async for chunk in response.streaming_content])


@pytest.mark.parametrize("kind", ["base", "extension"])
def test_events_of_a_finished_job_stream_for_every_booklet_kind(client, alice, kind):
    game = GameFactory(name="Les Aéronautes")
    extension = ExtensionFactory(game=game, name="Storm Front") if kind == "extension" else None
    job = IngestJob.objects.create(game=game, extension=extension, booklet_kind=kind, status=IngestJob.Status.DONE)
    job.emit("done", {"chunks": 3})
    client.force_login(alice)

    response = client.get(f"/api/ingest/{job.pk}/events")

    assert response.status_code == 200
    body = async_to_sync(read)(response).decode()
    assert "event: done" in body
