"""Browser tests: Debian's headless Chromium (playwright-python, never `playwright install`)
driving a real daphne (tests/support/daphne.py) and, for ingestion, a real django-q2 cluster.

Screenshots of the main pages land in test-artifacts/ (git-ignored) for people to look at.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import sync_playwright

from tests.support.daphne import BASE_DIR, database_url

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
ARTIFACTS = BASE_DIR / "test-artifacts"


# Playwright's sync API runs an event loop in the test's thread, which Django takes for an
# async context: allow the test process's own ORM calls while a browser is up, never the servers'.
SERVER_ENV = {"WHITENOISE_USE_FINDERS": "true", "DJANGO_ALLOW_ASYNC_UNSAFE": ""}


@pytest.fixture
def browser(monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def live_daphne_env():
    """The server serves static files from static/ (no collectstatic in tests)."""
    return dict(SERVER_ENV)


def open_signed_in(browser, base_url: str, user, *, viewport=None, locale="fr-FR", **options):
    """A browser page whose session cookie belongs to `user` (session stored in the test DB);
    `options` go to the browser context (e.g. has_touch=True)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(base_url=base_url, locale=locale, viewport=viewport or {"width": 1280, "height": 860}, **options)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}])
    page = context.new_page()
    page.on("console", lambda message: print(f"[browser {message.type}] {message.text}"))
    return page


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


@pytest.fixture
def qcluster(live_daphne, settings, tmp_path):
    """A django-q2 cluster (the ingestion worker) on the test database, like `make run` starts."""
    from django.db import connection

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "oracle_site.settings",
        "DATABASE_URL": database_url(connection.settings_dict),
        "SECRET_KEY": settings.SECRET_KEY,
        "ORACLE_VAR_DIR": str(tmp_path / "server-var"),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "QDRANT_PATH": str(settings.QDRANT_PATH),
        "PYTHONPATH": str(BASE_DIR),
        "OMP_WAIT_POLICY": "PASSIVE",
        "Q_POLL_S": "0.2",
        **SERVER_ENV,
    }
    log_path = tmp_path / "qcluster.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=BASE_DIR, env=env,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        yield log_path
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # the cluster and the workers it forked
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture
def course_folle(transactional_db):
    """The two-booklet game of tests/rag/corpus.py, indexed rows plus the matching PDFs."""
    from django.core.files.base import ContentFile

    from tests.e2e.booklets import pdf_of_pages
    from tests.factories import ExtensionFactory, GameFactory
    from tests.rag.corpus import BASE_PAGES, EXPANSION_PAGES, create_chunk_rows

    game = GameFactory(name="Course Folle", slug="course-folle")
    extension = ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain", language="en")
    game.pdf.save("course-folle.pdf", ContentFile(pdf_of_pages(BASE_PAGES)))
    extension.pdf.save("heavy-rain.pdf", ContentFile(pdf_of_pages(EXPANSION_PAGES)))
    create_chunk_rows(game, extension)
    return game, extension
