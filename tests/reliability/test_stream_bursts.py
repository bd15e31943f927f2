"""Issue 28, defect 5: once, a daphne process kept 206 → 610 SQLite file descriptors and
+127 MB after bursts of event streams closed (not reproduced on two later processes). A real
daphne serves 200 job event streams in bursts of 20; once they are closed it holds no more
database connections or file descriptors than after the first burst; so does one that answers
200 questions over the ask stream (`POST /api/ask/stream`, as `scripts.load_test` does).
(Not reproduced here: 15 descriptors and no SQLite one after the first burst and after the
200th job stream — a guard, not a fix.)"""

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from django.db import connection

from ingest.models import IngestJob
from questions.models import ApiToken
from tests.factories import GameFactory, IngestJobFactory
from tests.support.daphne import TLS

from .processes import server_env, start_daphne, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
BURSTS, STREAMS = 10, 20


def descriptors(pid: int) -> tuple[int, int]:
    """(all open descriptors, those on the SQLite database and its -wal/-shm files; on
    PostgreSQL a connection is a socket, counted with the others)."""
    database = None
    if connection.vendor == "sqlite":
        database = str(Path(connection.settings_dict["NAME"]).resolve())
        assert Path(database).is_file(), "the server shares the test database file"
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except FileNotFoundError:
            pass
    return len(targets), sum(1 for t in targets if database and t.startswith(database))


def bursts_leave_nothing_open(daphne, one_stream) -> None:
    """BURSTS bursts of STREAMS `one_stream()` calls (each: (status, ended with `done`)); once
    closed, daphne holds no more descriptors than after the first burst, and no more SQLite ones."""
    try:
        with ThreadPoolExecutor(STREAMS) as pool:
            assert all(r == (200, True) for r in pool.map(lambda _: one_stream(), range(STREAMS)))
            settled = wait_for(lambda: descriptors(daphne.pid), 10, what="daphne's descriptors")
            for _burst in range(BURSTS - 1):
                assert all(r == (200, True) for r in pool.map(lambda _: one_stream(), range(STREAMS)))
        after = wait_for(lambda: (lambda d: d if d[1] <= settled[1] and d[0] <= settled[0] + 2 else None)(descriptors(daphne.pid)),
                         15, what=f"descriptors back to the first burst's {settled}")
        print(f"\nafter the first burst: {settled} (all, SQLite); after {BURSTS * STREAMS} streams: {after}")
    finally:
        daphne.stop()


def test_200_closed_event_streams_leave_no_connection_or_descriptor_open(settings, tmp_path, alice):
    job = IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.DONE)
    for n in range(5):
        job.emit("act", {"act": "read", "label": "Lecture", "state": "progress", "done": n, "total": 5, "elapsed": 0.1})
    job.emit("done", {"chunks": 3, "pages": 5, "ocr": 0, "stats": {}})
    _, key = ApiToken.issue(alice, "bursts")
    daphne, base = start_daphne(server_env(settings, tmp_path / "var"), tmp_path / "daphne.log")
    url = f"{base}/api/ingest/{job.pk}/events"

    def stream():
        with httpx.stream("GET", url, headers={"Authorization": f"Bearer {key}"}, timeout=60, verify=TLS) as response:
            body = "".join(response.iter_text())
        return response.status_code, "event: done" in body

    bursts_leave_nothing_open(daphne, stream)


def test_200_answered_ask_streams_leave_no_connection_or_descriptor_open(settings, tmp_path, alice):
    from tests.factories import ExtensionFactory
    from tests.rag.corpus import create_chunk_rows

    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    _, key = ApiToken.issue(alice, "bursts")
    env = server_env(settings, tmp_path / "var", RATE_LIMIT_ASK_USER="1000/m", RATE_LIMIT_ASK_IP="1000/m")
    daphne, base = start_daphne(env, tmp_path / "daphne.log")
    body = {"gameId": str(game.pk), "question": "Peut-on jouer une carte Boost dans un virage ?"}

    def ask():
        with httpx.stream("POST", f"{base}/api/ask/stream", json=body, headers={"Authorization": f"Bearer {key}"},
                          timeout=120, verify=TLS) as response:  # fmt: skip
            text = "".join(response.iter_text())
        return response.status_code, "event: done" in text

    bursts_leave_nothing_open(daphne, ask)
