"""A game's booklets are listed in the same few queries however many it has: their chunk
counts, index states and last jobs are read for the whole game at once, not per booklet."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ingest.models import IngestJob
from tests.factories import ChunkFactory, ExtensionFactory, GameFactory, IngestJobFactory

pytestmark = pytest.mark.django_db


def job(game, extension=None, *, status, hours_ago: int, **fields) -> IngestJob:
    made = IngestJobFactory(game=game, extension=extension, booklet_kind=extension.kind if extension else "base", status=status, **fields)
    IngestJob.objects.filter(pk=made.pk).update(created_at=timezone.now() - timedelta(hours=hours_ago))
    return made


def add_booklets(game, count: int) -> None:
    for n in range(count):
        extension = ExtensionFactory(game=game)
        ChunkFactory(game=game, extension=extension, indexed=True)
        ChunkFactory(game=game, extension=extension, indexed=n % 2 == 0)
        job(game, extension, status=IngestJob.Status.ERROR, hours_ago=2)
        job(game, extension, status=IngestJob.Status.DONE, hours_ago=1)


def queries_of(client, url: str) -> int:
    client.get(url)  # the token's first use is recorded once: not a per-booklet cost
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.parametrize("path", ["/api/games/{game}", "/api/games/{game}/booklets"])
def test_six_booklets_cost_the_queries_of_two(admin, path, django_assert_max_num_queries):
    """Staff's view, with the booklets' last jobs (a player's has none)."""
    game = GameFactory(name="Heat")
    ChunkFactory(game=game, indexed=True)
    ChunkFactory(game=game, is_forum=True)  # a forum passage is not the booklet's
    job(game, status=IngestJob.Status.DONE, hours_ago=1)
    add_booklets(game, 1)
    url = path.format(game=game.pk)
    two = queries_of(admin, url)

    add_booklets(game, 4)
    with django_assert_max_num_queries(two):
        listed = admin.get(url).json()

    booklets = listed["booklets"] if "booklets" in listed else listed["items"]
    assert len(booklets) == 6 and booklets[0]["kind"] == "base"
    assert [b["chunk_count"] for b in booklets] == [1] + [2] * 5
    assert sorted(b["index_state"] for b in booklets[1:]) == ["indexed"] * 3 + ["pending"] * 2
    assert all(b["last_job"]["status"] == "done" for b in booklets)


def test_a_booklets_last_job_is_its_newest(admin):
    game = GameFactory(name="Heat")
    rain = ExtensionFactory(game=game, name="Pluie")
    job(game, status=IngestJob.Status.DONE, hours_ago=3)
    newest = job(game, status=IngestJob.Status.ERROR, error="boom", hours_ago=1)
    job(game, rain, status=IngestJob.Status.DONE, hours_ago=5)
    job(game, rain, status=IngestJob.Status.CANCELLED, hours_ago=4)

    base, expansion = admin.get(f"/api/games/{game.pk}/booklets").json()["items"]

    assert base["last_job"]["id"] == str(newest.pk) and base["last_job"]["error"] == "boom"
    assert expansion["last_job"]["status"] == "cancelled"
    assert admin.get(f"/api/booklets/{rain.pk}").json()["last_job"]["status"] == "cancelled"
