"""Shared fixtures: the named actors (alice the admin, bob a player, anonymous) and an
isolated vector store and media folder per test."""

import pytest

from tests.card_fixtures import card_embedder  # noqa: F401  (one per session: see its docstring)
from tests.factories import StaffFactory, UserFactory
from tests.support.daphne import live_daphne, live_daphne_asgi, live_daphne_env  # noqa: F401  (shared fixtures)


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
    """Media, caches and the local Qdrant folder of each test live in its own tmp folder."""
    from games.indexing import forget_synced_versions
    from runtime import components

    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PDF_DIR = settings.MEDIA_ROOT / "pdfs"
    settings.PAGE_IMAGES_DIR = settings.PDF_DIR / "images"
    settings.INGEST_CACHE_DIR = tmp_path / "cache" / "ingest"
    settings.QDRANT_PATH = tmp_path / "qdrant"
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


def pytest_collection_modifyitems(config, items):
    """`TESTS_DATABASE_ONLY=1` (make test-postgres) keeps the tests that use the test database:
    the second database's pass runs what can differ there; the others ran on SQLite already."""
    import os

    if os.environ.get("TESTS_DATABASE_ONLY", "") not in ("1", "true"):
        return
    kept = [item for item in items if touches_database(item)]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if not touches_database(item)])
        items[:] = kept
