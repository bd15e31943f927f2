"""Meta data from its real sources, replayed: `manage.py sync_meta` and the schedules bring
MTGTop8 decklists and 17Lands ratings into `meta_<slug>`; a meta question and an inspiration
list use them; stale documents are replaced; a changed site says so."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django_q.models import Schedule

from games import meta_schedule, meta_sync
from games.card_indexing import meta_collection
from games.card_search import meta_hits
from games.indexing import sync_if_changed
from games.models import Decklist
from runtime import components
from rag.deckbuilding.pool import fetch_inspiration_decklists
from rag.deckbuilding.spec import DeckSpec
from games.meta_sources import PoliteClient, SiteChanged
from games.meta_sources import mtgtop8 as top8
from tests.factories import GameFactory
from tests.games import meta_replay

pytestmark = pytest.mark.django_db


@pytest.fixture
def sources(settings, tmp_path):
    server = meta_replay.start()
    settings.MTGTOP8_BASE_URL = server.url
    settings.SEVENTEENLANDS_BASE_URL = server.url
    settings.META_SYNC_MTGTOP8 = "magic=premodern"
    settings.META_SYNC_17LANDS = "magic=LTR"
    settings.META_MIN_INTERVAL_S = 0.0
    settings.META_CACHE_DIR = tmp_path / "meta-cache"
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def magic(db):
    return GameFactory(name="Magic", slug="magic", card_game="mtg")


def run_sync(**kwargs):
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("sync_meta", stdout=out, stderr=err, **kwargs)
    except CommandError as exc:
        return out.getvalue(), err.getvalue() + str(exc)
    return out.getvalue(), err.getvalue()


def meta_points(game):
    store = components.vector_store()
    sync_if_changed(store, [meta_collection(game)])
    return {p.payload["deck_name"]: p.payload for p in store.scroll(meta_collection(game))}


def test_sync_meta_imports_decklists_and_ratings_into_the_meta_collection(sources, magic):
    out, err = run_sync()

    points = meta_points(magic)
    deck = points["mtgtop8-894541"]
    assert deck["meta_type"] == "tournament_deck" and deck["meta_format"] == "premodern"
    assert deck["date"] == "2026-09-30"
    assert deck["source_url"] == f"{sources.url}/event?e=91451&d=894541&f=PREM"
    assert [4, "Griselbrand"] in deck["sections"]["main"] and [4, "Chain of Smog"] in deck["sections"]["sideboard"]
    assert "Goblins" in deck["source"] and "Enrico Vair" in deck["source"]
    ratings = points["17lands-LTR-PremierDraft"]
    assert ratings["meta_type"] == "card_ratings" and ratings["meta_format"] == "limited"
    assert ratings["source_url"] == f"{sources.url}/card_ratings?expansion=LTR&format=PremierDraft"
    first_line = ratings["text"].splitlines()[1]
    assert first_line.startswith("1. Boromir, Warden of the Tower") and "GIH WR 60.3 %" in first_line
    # The second deck's export is gone (404): reported, the rest is stored.
    assert "1 decklists, 1 rating sets" in out and "894542" in err and "HTTP 404" in err


def test_a_second_run_replaces_stale_documents_instead_of_piling_them_up(sources, magic, settings):
    run_sync()
    sources.routes[("/format", (("f", "PREM"),))] = (200, "text/html", meta_replay.FORMAT_PREM.replace("91451", "91452"))
    sources.routes[("/event", (("e", "91452"), ("f", "PREM")))] = (
        200, "text/html", meta_replay.EVENT_91451.replace("91451", "91452").replace("894541", "894551"))
    sources.routes[("/dec", (("d", "894551"),))] = (200, "text/plain", meta_replay.REANIMATOR_DEC)
    settings.META_CACHE_TTL_S = 0  # the pages changed: read them again

    run_sync()

    names = set(Decklist.objects.filter(game=magic).values_list("name", flat=True))
    assert names == {"mtgtop8-894551", "17lands-LTR-PremierDraft"}
    assert set(meta_points(magic)) == names


def test_a_second_run_keeps_the_vectors_of_unchanged_documents_and_embeds_changed_ones_again(sources, magic, settings):
    run_sync()
    vectors = dict(Decklist.objects.filter(game=magic).values_list("name", "dense"))
    ratings = json.loads(meta_replay.LTR_RATINGS)
    ratings[0]["ever_drawn_win_rate"] = 0.7  # 17Lands' numbers moved overnight
    sources.routes[("/card_ratings/data", (("expansion", "LTR"), ("format", "PremierDraft")))] = (
        200, "application/json", json.dumps(ratings))
    settings.META_CACHE_TTL_S = 0

    run_sync()

    again = {row.name: row for row in Decklist.objects.filter(game=magic)}
    assert again["mtgtop8-894541"].dense == vectors["mtgtop8-894541"] is not None  # unchanged: still searchable as it was
    assert again["17lands-LTR-PremierDraft"].dense != vectors["17lands-LTR-PremierDraft"]
    assert "70.0 %" in again["17lands-LTR-PremierDraft"].body


def test_answers_are_cached_and_requests_spaced(sources, tmp_path):
    waits = []
    client = PoliteClient(sources.url, min_interval_s=60.0, cache_dir=tmp_path / "c", sleep=waits.append)
    source = top8.MtgTop8(client)
    events = source.recent_events("PREM")
    source.event(events[0])
    source.recent_events("PREM")  # from the cache: no request, no wait
    client.close()

    assert [e.id for e in events] == ["91451"]
    assert sources.requests == ["/format?f=PREM", "/event?e=91451&f=PREM"]
    assert len(waits) == 1 and 59 < waits[0] <= 60


def test_a_site_that_changed_shape_gets_a_clear_error(sources, magic):
    sources.routes[("/format", (("f", "PREM"),))] = (200, "text/html", "<html><div id=app></div></html>")
    with pytest.raises(SiteChanged, match=r"no event link"):
        top8.MtgTop8(PoliteClient(sources.url, min_interval_s=0)).recent_events("PREM")
    sources.routes[("/card_ratings/data", (("expansion", "LTR"), ("format", "PremierDraft")))] = (
        200, "application/json", '{"detail": "moved"}')

    out, err = run_sync()

    assert "no event link" in err and "17Lands card ratings LTR: not a list of cards" in err
    assert not Decklist.objects.filter(game=magic).exists()


def test_a_page_that_could_not_be_read_is_asked_again_not_replayed_from_the_cache(sources, tmp_path):
    """A maintenance page served with a 200 fails the sync once; once the site is back, the
    next sync reads it, instead of replaying the bad page from the cache for 20 hours."""
    fine = sources.routes[("/format", (("f", "PREM"),))]
    sources.routes[("/format", (("f", "PREM"),))] = (200, "text/html", "<html>Maintenance en cours</html>")
    client = PoliteClient(sources.url, min_interval_s=0, cache_dir=tmp_path / "c")
    with pytest.raises(SiteChanged):
        top8.MtgTop8(client).recent_events("PREM")
    sources.routes[("/format", (("f", "PREM"),))] = fine

    assert [e.id for e in top8.MtgTop8(client).recent_events("PREM")] == ["91451"]
    assert [e.id for e in top8.MtgTop8(client).recent_events("PREM")] == ["91451"]  # now from the cache
    assert sources.requests == ["/format?f=PREM", "/format?f=PREM"]


def test_a_cached_page_the_connector_no_longer_reads_is_fetched_again(sources, tmp_path):
    client = PoliteClient(sources.url, min_interval_s=0, cache_dir=tmp_path / "c")
    source = top8.MtgTop8(client)
    source.recent_events("PREM")
    for cached in (tmp_path / "c").iterdir():  # what an older connector cached, say
        cached.write_text("<html>an older layout</html>", encoding="utf-8")

    assert [e.id for e in source.recent_events("PREM")] == ["91451"]
    assert sources.requests == ["/format?f=PREM", "/format?f=PREM"]


def test_a_meta_question_and_an_inspiration_list_use_the_synced_documents(sources, magic):
    run_sync()
    store = components.vector_store()
    sync_if_changed(store, [meta_collection(magic)])
    embedder = components.embedder()

    hits = meta_hits(store, embedder, magic, "Quelles cartes de LTR ont le meilleur taux de victoire en draft ?", "")
    inspiration = fetch_inspiration_decklists(store, embedder, meta_collection(magic), "un deck Reanimator",
                                              DeckSpec(game="mtg", format="premodern", main=60, max_copies=4))

    assert hits[0].payload["deck_name"] == "17lands-LTR-PremierDraft"
    assert [d["deck_name"] for d in inspiration] == ["mtgtop8-894541"]


def test_schedules_follow_the_settings(settings, magic):
    settings.META_SYNC_MTGTOP8 = "magic=modern"
    settings.META_SYNC_ENABLED = False
    assert meta_schedule.ensure_meta_sync_schedules() == []
    settings.META_SYNC_ENABLED = True
    settings.META_SYNC_FREQUENCY = "magic=weekly"

    [schedule] = meta_schedule.ensure_meta_sync_schedules()

    assert (schedule.name, schedule.func, schedule.schedule_type) == ("meta-sync-magic", meta_schedule.TASK, Schedule.WEEKLY)
    assert schedule.args == "'magic'"
    settings.META_SYNC_ENABLED = False
    meta_schedule.ensure_meta_sync_schedules()
    assert not Schedule.objects.filter(name__startswith="meta-sync-").exists()


def test_the_scheduled_task_imports_like_the_command(sources, magic):
    report = meta_sync.sync_game_task("magic")
    assert report["decks"] == 1 and report["ratings"] == 1


def test_event_rows_are_read_from_a_real_mtgtop8_listing():
    """The connector's event-row reading on MTGTop8's own markup (a recorded search-results
    page, see data/meta/README.md), not only on the reduced format page the replay serves:
    each format keeps its own events, newest first, with the row's date, and a format with no
    row there is a clear `SiteChanged`."""
    import datetime as dt

    text = (meta_replay.DATA / "mtgtop8_search_recent.html").read_text()
    assert top8.parse_format_page(text, "LE") == [top8.Event("74331", "LE", "MTGO League", dt.date(2025, 9, 29))]
    assert [e.name for e in top8.parse_format_page(text, "PEA")] == ["Mtg-Peasant @ Cockatrice", "Mtg-Peasant - Weekly @ Cockatrice"]
    assert top8.parse_format_page(text, "EDH")[0].name == "Tournoi des Mages Nazairiens @ Saint-Nazaire (France)"
    with pytest.raises(SiteChanged):
        top8.parse_format_page(text, "PREM")


def test_a_format_given_by_its_mtgtop8_code_is_stored_under_its_name(sources, magic, settings):
    settings.META_SYNC_MTGTOP8 = "magic=PREM"
    run_sync()
    formats = set(Decklist.objects.filter(game=magic, meta_type="tournament_deck").values_list("format", flat=True))
    assert formats == {"premodern"}  # inspiration lists and meta questions filter on the name
