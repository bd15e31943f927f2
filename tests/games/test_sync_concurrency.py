"""Two processes at once: every django-q2 worker sweeps the schedules when it starts, and two
syncs of one game's forum can overlap (a worker's nightly run and `manage.py sync_bgg`). The
schedules stay one per name and a thread stays one chunk (run on SQLite and, by
`make test-postgres`, on PostgreSQL: threads stand in for processes, each with its own
database connection)."""

import threading
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django import db
from django_q.models import Schedule

from games import bgg_sync, meta_schedule
from games.models import Chunk
from tests.factories import GameFactory
from tests.games.bgg_replay import XML_DIR, fake_bgg, private_cache  # noqa: F401  (fixtures)

NOW = datetime(2026, 11, 29, 20, 0, tzinfo=ZoneInfo("Europe/Paris"))


def in_threads(*jobs) -> None:
    def run(job):
        try:
            job()
        finally:
            db.connections.close_all()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    [t.start() for t in threads]
    [t.join(timeout=60) for t in threads]


@pytest.fixture
def meta_enabled(settings):
    settings.META_SYNC_ENABLED = True
    settings.META_SYNC_MTGTOP8 = "magic=premodern"
    GameFactory(name="Magic", slug="magic", card_game="mtg")


SWEEPS = {
    "bgg-forum-sync": lambda: bgg_sync.ensure_forum_sync_schedule(now=NOW),
    "meta-sync-magic": lambda: meta_schedule.ensure_meta_sync_schedules(now=NOW),
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", SWEEPS)
def test_two_workers_sweeping_together_keep_one_schedule(fake_bgg, meta_enabled, monkeypatch, name):
    """The first worker is held just before it writes its schedule; the second one sweeps
    meanwhile. Without a lock both read « none yet » and each created one: the nightly sync
    ran twice, two clients calling BGG at once."""
    holding, second_done = threading.Event(), threading.Event()
    save = Schedule.save

    def held_first_save(schedule, *args, **kwargs):
        if not holding.is_set():
            holding.set()
            second_done.wait(timeout=2)  # with the lock, the second worker waits for us instead
        return save(schedule, *args, **kwargs)

    monkeypatch.setattr(Schedule, "save", held_first_save)

    def second():
        holding.wait(timeout=10)
        try:
            SWEEPS[name]()
        finally:
            second_done.set()

    in_threads(SWEEPS[name], second)

    assert Schedule.objects.filter(name=name).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("name", SWEEPS)
def test_a_sweep_finding_copies_of_a_schedule_keeps_one(fake_bgg, meta_enabled, name):
    kept = SWEEPS[name]()
    kept = kept[0] if isinstance(kept, list) else kept
    Schedule.objects.create(name=name, func=kept.func, args=kept.args, schedule_type=kept.schedule_type,
                            repeats=-1, next_run=kept.next_run)  # left by two workers before the lock

    SWEEPS[name]()

    assert list(Schedule.objects.filter(name=name).values_list("pk", flat=True)) == [kept.pk]


@pytest.mark.django_db(transaction=True)
def test_two_overlapping_forum_syncs_of_a_game_store_each_thread_once(fake_bgg, monkeypatch):
    """The first sync to write is held in the middle of its batch while the other one reads
    and writes: without a lock, neither saw the other's chunks and each thread was stored twice."""
    game = GameFactory(name="Scythe", slug="scythe", bgg_id=169786)
    holder, other_done = [], threading.Event()
    save = Chunk.save

    def held_first_save(chunk, *args, **kwargs):
        if not holder:
            holder.append(threading.get_ident())
            other_done.wait(timeout=3)  # with the lock, the other sync waits for this one instead
        return save(chunk, *args, **kwargs)

    monkeypatch.setattr(Chunk, "save", held_first_save)

    def sync():
        client = bgg_sync.client_from_settings()  # each its own client, as two processes
        try:
            bgg_sync.sync_forum(game, client)
        finally:
            client.close()
            if holder and holder[0] != threading.get_ident():
                other_done.set()

    in_threads(sync, sync)

    threads = Chunk.objects.filter(game=game, is_forum=True).values_list("payload__bgg_thread_id", flat=True)
    assert sorted(threads) == [3269876, 3270001]


@pytest.mark.django_db
def test_a_thread_stored_twice_before_is_kept_once_when_written_again(fake_bgg):
    game = GameFactory(name="Scythe", slug="scythe", bgg_id=169786)
    client = bgg_sync.client_from_settings()
    bgg_sync.sync_forum(game, client)
    copy = Chunk.objects.get(payload__bgg_thread_id=3269876)
    copy.pk = None
    copy.save()  # what two overlapping syncs left before the lock
    forum = (XML_DIR / "forum.xml").read_text()
    fake_bgg.overrides["forum.xml"] = forum.replace("Sun, 05 May 2024 21:44:10", "Mon, 06 May 2024 08:00:00")  # a new post

    bgg_sync.sync_forum(game, client)
    client.close()

    threads = Chunk.objects.filter(game=game, is_forum=True).values_list("payload__bgg_thread_id", flat=True)
    assert sorted(threads) == [3269876, 3270001]
