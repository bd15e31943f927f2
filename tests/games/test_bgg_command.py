"""`manage.py sync_bgg`: the daily sync on demand."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.models import Chunk
from tests.factories import GameFactory
from tests.games.bgg_replay import fake_bgg, private_cache  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db


def test_the_command_syncs_one_game_and_reports_its_threads(fake_bgg):
    scythe = GameFactory(name="Scythe", bgg_id=169786)
    out = StringIO()

    call_command("sync_bgg", "--game", "scythe", stdout=out)

    assert out.getvalue().strip() == "scythe: 2 new, 0 updated, 0 unchanged forum threads"
    assert Chunk.objects.filter(game=scythe, is_forum=True).count() == 2


def test_metadata_only_leaves_the_forum_alone(fake_bgg):
    scythe = GameFactory(name="Scythe", bgg_id=169786)

    call_command("sync_bgg", "--metadata-only", stdout=StringIO())

    scythe.refresh_from_db()
    assert scythe.bgg_metadata["categories"][0] == "Economic"
    assert not Chunk.objects.exists()
    assert not fake_bgg.calls("forumlist")


def test_without_a_token_the_command_says_why(settings):
    settings.BGG_API_TOKEN = ""

    with pytest.raises(CommandError, match="BGG_API_TOKEN"):
        call_command("sync_bgg")


def test_a_forum_sync_that_stopped_half_way_keeps_what_it_read_and_fails_the_command(fake_bgg):
    scythe = GameFactory(name="Scythe", bgg_id=169786)
    fake_bgg.overrides["thread-3269876.xml"] = "Service temporarily unavailable"  # the second thread read
    out = StringIO()

    with pytest.raises(CommandError, match="scythe: BGG thread returned something that is not XML"):
        call_command("sync_bgg", "--game", "scythe", stdout=out)

    assert out.getvalue().startswith("scythe: 1 new, 0 updated")
    assert Chunk.objects.filter(game=scythe, is_forum=True).count() == 1
