"""Shared fixtures: the named actors (alice the admin, bob a player, anonymous) and an
isolated vector store and media folder per test."""

import json
import os
from pathlib import Path

import pytest

from tests.card_fixtures import card_embedder, magic_catalog  # noqa: F401  (card_embedder: one per session, see its docstring)
from tests.factories import StaffFactory, UserFactory
from tests.support.daphne import live_daphne, live_daphne_asgi, live_daphne_env, module_daphne  # noqa: F401  (shared fixtures)


@pytest.fixture
def alice(db):
    """The club's admin (staff)."""
    return StaffFactory(username="alice")


@pytest.fixture
def bob(db):
    """A signed-in player."""
    return UserFactory(username="bob")


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Each test starts with no request counted against the rate limits (runtime.ratelimit)."""
    from django.conf import settings
    from django.core.cache import caches

    caches[settings.RATE_LIMIT_CACHE].clear()


@pytest.fixture(autouse=True)
def site_language():
    """Each test starts in the site's language: a test client request with `Accept-Language: en`
    leaves English active on the test's thread (a server's request runs in its own context),
    and the next test's inline ingestion then wrote its errors in English."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def isolated_storage(settings, tmp_path):
    """Media, caches and the local Qdrant folder of each test live in its own tmp folder.

    The shared cache too (a file cache under var/ by default): with one cache for every
    xdist worker, a test clearing it (a quota pause « 24 h later ») can wipe the cancel flag
    of another worker's running job, which then runs to the end."""
    from games.indexing import forget_synced_versions
    from runtime import components

    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PDF_DIR = settings.MEDIA_ROOT / "pdfs"
    settings.PAGE_IMAGES_DIR = settings.PDF_DIR / "images"
    settings.INGEST_CACHE_DIR = tmp_path / "cache" / "ingest"
    settings.QDRANT_PATH = tmp_path / "qdrant"
    if settings.CACHES["default"]["BACKEND"].endswith("FileBasedCache"):
        settings.CACHES = {**settings.CACHES, "default": {**settings.CACHES["default"], "LOCATION": str(tmp_path / "cache" / "django")}}
    components.reset_vector_store()
    forget_synced_versions()
    yield
    components.reset_vector_store()
    forget_synced_versions()


# Fixtures through which a test reaches the test database (pytest-django refuses database
# access to any other test, so a test without one of them cannot depend on the database).
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"}


def touches_database(item) -> bool:
    return item.get_closest_marker("django_db") is not None or not DATABASE_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))


@pytest.hookimpl(trylast=True)  # after pytest-django's own ordering
def pytest_collection_modifyitems(config, items):
    """`TESTS_DATABASE_ONLY=1` (make test-postgres) keeps the tests that use the test database:
    the second database's pass runs what can differ there; the others ran on SQLite already.
    Then the long tests go first on every xdist worker (longest_first)."""
    if os.environ.get("TESTS_DATABASE_ONLY", "") in ("1", "true"):
        kept = [item for item in items if touches_database(item)]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[item for item in items if not touches_database(item)])
            items[:] = kept
    if DURATIONS_FILE.exists():
        items[:] = longest_first(items, json.loads(DURATIONS_FILE.read_text()), workers(config))


def workers(config) -> int:
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT") or getattr(config.option, "numprocesses", None) or 1
    return max(int(count), 1)


def shares_a_fixture_with_its_module(item) -> bool:
    """A test using a module- or class-scoped fixture stays beside its neighbours (moving it
    would set the fixture up twice)."""
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(defs[-1].scope in ("module", "class", "package") for defs in info.name2fixturedefs.values())


def longest_first(items: list, durations: dict[str, float], lanes: int) -> list:
    """The collection in the order xdist's `--dist worksteal` wants it: worksteal hands each
    worker a contiguous share (the first len/lanes items to gw0, and so on) and a worker that
    runs dry steals the tail of another's share. Each share here starts with its recorded long
    tests, longest first, dealt so that the shares' recorded seconds are even; the other tests
    follow in their collection order. A long test thus never starts last on one core while the
    other sits idle. Without xdist (one lane) the long tests simply come first."""
    timed = [item for item in items if durations.get(item.nodeid, 0) > 0 and not shares_a_fixture_with_its_module(item)]
    if not timed:
        return items
    timed_ids = {id(item) for item in timed}
    rest = [item for item in items if id(item) not in timed_ids]
    sizes, left = [], len(items)
    for lane in range(lanes):  # the shares worksteal's first schedule cuts
        sizes.append(left // (lanes - lane))
        left -= sizes[-1]
    shares: list[list] = [[] for _ in range(lanes)]
    seconds = [0.0] * lanes
    for item in sorted(timed, key=lambda item: -durations[item.nodeid]):
        open_lanes = [lane for lane in range(lanes) if len(shares[lane]) < sizes[lane]]
        lane = min(open_lanes, key=lambda lane: seconds[lane])
        shares[lane].append(item)
        seconds[lane] += durations[item.nodeid]
    ordered, position = [], 0
    for lane in range(lanes):
        fill = sizes[lane] - len(shares[lane])
        ordered += shares[lane] + rest[position:position + fill]
        position += fill
    return ordered


# Recorded durations (tests/durations.json), for ordering the long tests first (below).
DURATIONS_FILE = Path(__file__).parent / "durations.json"
RECORD_AT_LEAST_S = 2.0  # shorter tests keep their collection order: not worth a line in the file
_recorded: dict[str, float] = {}


def pytest_runtest_logreport(report):
    """`TESTS_RECORD_DURATIONS=1` adds up each test's setup, call and teardown (in the
    controller under xdist, which receives every worker's reports)."""
    if os.environ.get("TESTS_RECORD_DURATIONS", "") in ("1", "true"):
        _recorded[report.nodeid] = _recorded.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    """Writes the recorded durations of the tests that took RECORD_AT_LEAST_S or more into
    tests/durations.json, merged with those already there (a partial run updates its tests)."""
    if not _recorded or hasattr(session.config, "workerinput"):
        return
    known = json.loads(DURATIONS_FILE.read_text()) if DURATIONS_FILE.exists() else {}
    known.update({nodeid: round(seconds, 1) for nodeid, seconds in _recorded.items()})
    kept = {nodeid: seconds for nodeid, seconds in sorted(known.items()) if seconds >= RECORD_AT_LEAST_S}
    DURATIONS_FILE.write_text(json.dumps(kept, indent=0, sort_keys=True) + "\n")
