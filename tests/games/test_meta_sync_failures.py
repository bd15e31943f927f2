"""Meta sources that fail, answer nothing, or leave the settings: what an earlier run stored is
never lost to a failing site, what is no longer configured goes, and a scheduled run that
could read nothing fails where the admin sees it (django-q2, `/api/health`)."""

import json
import os
import time

import pytest
from django.utils import timezone

from games import meta_sync
from games.models import Decklist
from tests.factories import GameFactory
from tests.games import meta_replay
from tests.games.test_meta_sync import magic, run_sync, sources  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

LTR = ("/card_ratings/data", (("expansion", "LTR"), ("format", "PremierDraft")))
LTR_QUICK = ("/card_ratings/data", (("expansion", "LTR"), ("format", "QuickDraft")))


def names(game, meta_type=None) -> set[str]:
    rows = Decklist.objects.filter(game=game)
    if meta_type:
        rows = rows.filter(meta_type=meta_type)
    return set(rows.values_list("name", flat=True))


def move_to_a_new_event(sources, *exports):
    """MTGTop8 moved on to event 91452, whose decks are 894551 and 894542 (answers given)."""
    sources.routes[("/format", (("f", "PREM"),))] = (200, "text/html", meta_replay.FORMAT_PREM.replace("91451", "91452"))
    sources.routes[("/event", (("e", "91452"), ("f", "PREM")))] = (
        200, "text/html", meta_replay.EVENT_91451.replace("91451", "91452").replace("894541", "894551"))
    for deck_id, answer in exports:
        sources.routes[("/dec", (("d", deck_id),))] = answer


# --- MTGTop8: older decks go only once newer ones are stored -------------------------------------


def test_deck_exports_that_fail_do_not_cost_the_format_its_lists(sources, magic, settings):
    run_sync()
    move_to_a_new_event(sources, ("894551", (503, "text/html", "<html>Service Unavailable</html>")))
    settings.META_CACHE_TTL_S = 0

    out, err = run_sync()

    assert names(magic, "tournament_deck") == {"mtgtop8-894541"}  # the only list there was stays
    assert "894551" in err and "HTTP 503" in err and "0 stale removed" in out


def test_older_decks_go_once_as_many_newer_ones_are_stored(sources, magic, settings):
    run_sync()
    move_to_a_new_event(sources, ("894551", (503, "text/html", "<html>Service Unavailable</html>")))
    settings.META_CACHE_TTL_S = 0
    run_sync()
    sources.routes[("/dec", (("d", "894551"),))] = (200, "text/plain", meta_replay.REANIMATOR_DEC)

    run_sync()  # 894542 still answers 404: one list was wanted, one is stored

    assert names(magic, "tournament_deck") == {"mtgtop8-894551"}


# --- 17Lands: an empty answer is a failure ------------------------------------------------------


@pytest.mark.parametrize("answer", [
    "[]",  # what 17Lands answers for a set code it does not know
    json.dumps([{"name": "Sting", "ever_drawn_win_rate": 0.61, "game_count": 12}]),  # a set just out
], ids=["empty", "too-few-games"])
def test_an_answer_without_rated_cards_keeps_the_previous_ratings_and_is_not_cached(sources, magic, settings, answer):
    run_sync()
    before = Decklist.objects.get(game=magic, name="17lands-LTR-PremierDraft").body
    sources.routes[LTR] = (200, "application/json", answer)
    settings.META_CACHE_TTL_S = 0

    out, err = run_sync()

    assert Decklist.objects.get(game=magic, name="17lands-LTR-PremierDraft").body == before
    assert "0 rating sets" in out and "17Lands card ratings LTR: no card with 200 games or more" in err
    settings.META_CACHE_TTL_S = 20 * 3600
    sources.routes[LTR] = meta_replay.default_routes()[LTR]
    sources.requests.clear()
    run_sync()
    assert any(r.startswith("/card_ratings/data") for r in sources.requests)  # asked again, not replayed


def test_a_misspelt_set_replacing_a_good_one_removes_nothing(sources, magic, settings):
    run_sync()
    settings.META_SYNC_17LANDS = "magic=LTRR"  # 17Lands answers [] for a code it does not know
    sources.routes[("/card_ratings/data", (("expansion", "LTRR"), ("format", "PremierDraft")))] = (200, "application/json", "[]")

    out, err = run_sync()

    assert names(magic, "card_ratings") == {"17lands-LTR-PremierDraft"}
    assert "LTRR" in err


# --- Formats and sets no longer configured -------------------------------------------------------


def test_a_set_replaced_in_the_settings_goes_though_a_deck_export_keeps_failing(sources, magic, settings):
    run_sync()  # deck 894542's export answers 404, run after run
    settings.META_SYNC_17LANDS = "magic=LTR:QuickDraft"
    sources.routes[LTR_QUICK] = meta_replay.default_routes()[LTR]

    out, err = run_sync()

    assert names(magic, "card_ratings") == {"17lands-LTR-QuickDraft"}
    assert "894542" in err


def test_formats_and_sets_no_longer_configured_are_deleted(sources, magic, settings):
    run_sync()
    settings.META_SYNC_MTGTOP8 = ""  # the club stops following Premodern

    run_sync()
    assert names(magic) == {"17lands-LTR-PremierDraft"}

    settings.META_SYNC_MTGTOP8 = "magic=premodern"
    settings.META_SYNC_17LANDS = ""  # and the game's last set
    run_sync()
    assert names(magic) == {"mtgtop8-894541"}


def test_a_game_dropped_from_the_settings_loses_its_documents_at_the_next_sync_meta(sources, magic, settings):
    run_sync()
    GameFactory(name="Flesh and Blood", slug="fab")
    settings.META_SYNC_MTGTOP8 = settings.META_SYNC_17LANDS = "fab=classic constructed"
    hand_made = Decklist.objects.create(game=magic, name="Mon deck du jeudi", format="premodern", sections={"main": [[4, "Ponder"]]})

    run_sync()

    assert names(magic) == {hand_made.name}  # only what the sync brought goes
    assert [g.slug for g in meta_sync.configured_games(leftovers=False)] == ["fab"]  # and no schedule for it


def test_a_failing_format_keeps_the_decks_of_a_format_it_may_replace(sources, magic, settings):
    run_sync()
    settings.META_SYNC_MTGTOP8 = "magic=premodren"  # a typo: MTGTop8 has no such format page

    out, err = run_sync()

    assert "mtgtop8-894541" in names(magic) and "premodren" in err


# --- The scheduled task: a run that read nothing fails, every run is recorded --------------------


def test_a_scheduled_run_that_reads_nothing_fails_and_is_recorded(sources, magic):
    for key in list(sources.routes):
        sources.routes[key] = (503, "text/html", "<html>Service Unavailable</html>")

    # django-q2 stores a task that raises as failed (admin « Tâches échouées »), not « Successful ».
    with pytest.raises(meta_sync.MetaSyncFailed, match="nothing could be read.*HTTP 503"):
        meta_sync.sync_game_task("magic")

    run = meta_sync.last_runs(["magic"])["magic"]
    assert (run["decks"], run["ratings"]) == (0, 0) and any("HTTP 503" in e for e in run["errors"])


def test_a_scheduled_run_that_read_something_succeeds_with_its_errors(sources, magic):
    report = meta_sync.sync_game_task("magic")  # deck 894542's export answers 404

    assert report["decks"] == 1 and report["errors"]
    assert meta_sync.last_runs(["magic"])["magic"]["errors"] == report["errors"]


def test_a_run_stopped_by_the_embedder_is_recorded_with_the_error(sources, magic, monkeypatch):
    from rag.embeddings import EmbeddingError
    from runtime import components

    def embedder_down():
        raise EmbeddingError("TEI unreachable")

    monkeypatch.setattr(components, "embedder", embedder_down)
    with pytest.raises(EmbeddingError):
        meta_sync.sync_game_task("magic")

    assert "EmbeddingError: TEI unreachable" in meta_sync.last_runs(["magic"])["magic"]["errors"]


# --- /api/health ---------------------------------------------------------------------------------


def meta_health(client, alice) -> dict:
    client.force_login(alice)  # the details are for staff
    return client.get("/api/health").json()["components"]["meta"]


def test_health_meta_is_disabled_without_a_source_or_with_the_schedules_off(client, alice, settings):
    settings.META_SYNC_MTGTOP8 = settings.META_SYNC_17LANDS = ""
    assert meta_health(client, alice)["status"] == "disabled"
    settings.META_SYNC_MTGTOP8, settings.META_SYNC_ENABLED = "magic=premodern", False

    check = meta_health(client, alice)

    assert check["status"] == "disabled" and "META_SYNC_ENABLED" in check["detail"]


def test_health_meta_shows_each_game_s_last_run_and_is_degraded_by_its_errors(client, alice, sources, magic, settings):
    settings.META_SYNC_ENABLED, settings.META_SYNC_FREQUENCY = True, "magic=weekly"
    assert "magic weekly at 04:00: not run yet" in meta_health(client, alice)["detail"]
    sources.routes[("/dec", (("d", "894542"),))] = (200, "text/plain", meta_replay.REANIMATOR_DEC)
    run_sync()
    check = meta_health(client, alice)
    assert check["status"] == "ok" and "2 decklists, 1 rating sets" in check["detail"]

    sources.routes[LTR] = (200, "application/json", "[]")
    settings.META_CACHE_TTL_S = 0
    run_sync()

    check = meta_health(client, alice)
    assert check["status"] == "degraded" and "magic: 17Lands card ratings LTR: no card" in check["detail"]


def test_health_meta_is_degraded_when_the_last_run_is_older_than_its_period(client, alice, magic, settings):
    settings.META_SYNC_MTGTOP8, settings.META_SYNC_ENABLED = "magic=premodern", True
    meta_sync._record(meta_sync.MetaSyncReport(game="magic", decks=8))
    key = meta_sync.LAST_RUN_CACHE_KEY.format(slug="magic")
    from django.core.cache import cache

    cache.set(key, {**cache.get(key), "at": (timezone.now() - timezone.timedelta(hours=27)).isoformat()}, None)

    check = meta_health(client, alice)

    assert check["status"] == "degraded" and "over 26 h old" in check["detail"]


# --- The answers' cache --------------------------------------------------------------------------


def test_cached_answers_older_than_their_use_are_pruned(sources, magic, settings):
    folder = settings.META_CACHE_DIR / "mtgtop8"
    folder.mkdir(parents=True)
    old, recent = folder / ("0" * 32), folder / ("1" * 32)
    old.write_text("<html>a deck of last month</html>")
    recent.write_text("<html>this morning's</html>")
    month_ago = time.time() - 30 * 86400
    os.utime(old, (month_ago, month_ago))

    run_sync()

    assert not old.exists() and recent.exists()
