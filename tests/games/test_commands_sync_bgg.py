"""`manage.py sync_bgg` runs as the daily task does: one failing game does not stop the others."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.models import Chunk
from tests.factories import GameFactory
from tests.games.bgg_replay import fake_bgg, private_cache  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

NO_SUCH_THING = '<?xml version="1.0" encoding="utf-8"?><items termsofuse="https://boardgamegeek.com/xmlapi/termsofuse"/>'


def test_a_game_with_a_bad_bgg_id_is_named_and_the_others_are_synced(fake_bgg):
    GameFactory(name="Akropolis", bgg_id=1)  # synced first (by name)
    scythe = GameFactory(name="Scythe", bgg_id=169786)
    GameFactory(name="Zoo", bgg_id=2)
    fake_bgg.overrides["thing-1.xml"] = fake_bgg.overrides["thing-2.xml"] = NO_SUCH_THING  # BGG's answer for an unknown id
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError) as failed:
        call_command("sync_bgg", stdout=out, stderr=err)

    assert str(failed.value) == "akropolis: BGG has no thing 1; zoo: BGG has no thing 2"
    assert err.getvalue().splitlines() == ["akropolis: BGG has no thing 1", "zoo: BGG has no thing 2"]
    assert out.getvalue().strip() == "scythe: 2 new, 0 updated, 0 unchanged forum threads"
    scythe.refresh_from_db()
    assert scythe.bgg_metadata["name"] == "Scythe"
    assert Chunk.objects.filter(game=scythe, is_forum=True).count() == 2


def test_a_token_bgg_refuses_still_stops_the_run_at_once(fake_bgg, settings):
    settings.BGG_API_TOKEN = "revoked"
    GameFactory(name="Akropolis", bgg_id=169786)
    GameFactory(name="Scythe", bgg_id=169786)

    with pytest.raises(CommandError, match="401"):
        call_command("sync_bgg", stdout=StringIO(), stderr=StringIO())

    assert len(fake_bgg.requests) == 1  # the second game was not tried with the same token


def test_a_game_whose_sync_fails_otherwise_is_named_and_the_others_are_synced(fake_bgg, monkeypatch):
    """The embedder down for one game's threads, as the daily task: named, the others go on."""
    from games import bgg_sync
    from rag.embeddings import EmbeddingError

    real = bgg_sync.sync_game

    def sync_game(game, client, **kwargs):
        if game.slug == "akropolis":
            raise EmbeddingError("embedding server answered 503 Service Unavailable\nFor more information…")
        return real(game, client, **kwargs)

    monkeypatch.setattr(bgg_sync, "sync_game", sync_game)
    GameFactory(name="Akropolis", bgg_id=1)
    scythe = GameFactory(name="Scythe", bgg_id=169786)

    with pytest.raises(CommandError) as failed:
        call_command("sync_bgg", stdout=StringIO(), stderr=StringIO())

    assert str(failed.value) == "akropolis: EmbeddingError: embedding server answered 503 Service Unavailable"
    assert Chunk.objects.filter(game=scythe, is_forum=True).count() == 2
