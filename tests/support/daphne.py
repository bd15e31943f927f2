"""`live_daphne`: a real daphne process serving Oracle on a free 127.0.0.1 port, against the
test database, for end-to-end tests (SSE, browser).

The server owns the test's local Qdrant folder (one process per folder, docs/architecture.md, decision 2):
create data through the database (chunks with vectors, `mark_changed`) and let the server
sync its index; never open `components.vector_store()` in the test process meanwhile.

Override the `live_daphne_env` fixture to pass settings (e.g. `ASK_HEARTBEAT_S`), and
`live_daphne_asgi` to serve another ASGI entry point (e.g. one with an LLM double).
"""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from oracle_site.warmup import WARM

BASE_DIR = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 180  # the wait ends when the server answers; on a busy machine (two xdist workers
# and other jobs on two cores) importing the app alone was seen to take over a minute


# One TLS context for the tests' throw-away httpx calls (`httpx.get`, `httpx.stream`): each call
# otherwise builds its own, loading the CA bundle (~50 ms of CPU), and polling a starting
# server every 0.1 s spent ~1 s of a core per server started (py-spy, December 2026).
TLS = ssl.create_default_context()

PIDS: dict[str, int] = {}  # base URL -> the daphne process serving it (tests read its /proc)


def threads_of(base_url: str) -> int:
    """The number of threads of the daphne serving `base_url`."""
    status = Path(f"/proc/{PIDS[base_url]}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Threads:")).split()[1])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(settings_dict: dict) -> str:
    """The URL of the test database, as the server process must open it."""
    engine = settings_dict["ENGINE"]
    if engine.endswith("sqlite3"):
        return f"sqlite:///{settings_dict['NAME']}"
    if "postgresql" in engine:
        auth = quote(settings_dict.get("USER") or "", safe="")
        if settings_dict.get("PASSWORD"):
            auth += ":" + quote(settings_dict["PASSWORD"], safe="")
        host = settings_dict.get("HOST") or "127.0.0.1"
        port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
        return f"postgres://{auth}@{host}{port}/{settings_dict['NAME']}"
    raise RuntimeError(f"live_daphne does not know how to share a {engine} database")


def _wait_for(process: subprocess.Popen, log_path: Path, ready, what: str) -> None:
    """Poll `ready()` until it is true; fail with the server's log if daphne exits first or
    `what` has not happened within STARTUP_TIMEOUT_S."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if ready():
            return
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}:\n{log_path.read_text()}")
        time.sleep(0.1)
    raise RuntimeError(f"daphne did not {what} within {STARTUP_TIMEOUT_S} s:\n{log_path.read_text()}")


def _answers(base_url: str) -> bool:
    try:
        httpx.get(f"{base_url}/api/ask/00000000-0000-0000-0000-000000000000", timeout=2, verify=TLS)
        return True
    except httpx.HTTPError:
        return False


def _wait_until_serving(process: subprocess.Popen, base_url: str, log_path: Path) -> None:
    _wait_for(process, log_path, lambda: _answers(base_url), "answer")


def _wait_until_warm(process: subprocess.Popen, log_path: Path) -> None:
    """Until the server's warm-up (oracle_site/warmup.py) has ended: it starts the ask pools'
    threads and runs one full collection, which a test counting threads or timing a stream
    would otherwise see in the middle of its work."""
    _wait_for(process, log_path, lambda: WARM in log_path.read_text(errors="replace"), "end its warm-up")


@pytest.fixture
def live_daphne_env() -> dict[str, str]:
    """Extra environment for the server process (override in a test module)."""
    return {}


@pytest.fixture
def live_daphne_asgi() -> str:
    return "oracle_site.asgi:application"


@pytest.fixture
def live_daphne(transactional_db, settings, tmp_path, live_daphne_env, live_daphne_asgi):
    """Yield the base URL (http://127.0.0.1:PORT) of a daphne serving the test database."""
    yield from serve(settings, tmp_path, live_daphne_env, live_daphne_asgi)


@pytest.fixture(scope="module")
def module_daphne(request, django_db_setup, django_db_blocker, tmp_path_factory):
    """One daphne for a whole module (`live_daphne`'s server, started once): for tests that
    create no rows for it to read (the test database is shared, not reset for it). Settings:
    a module-level `DAPHNE_ENV` dict."""
    from django.conf import settings

    tmp_path = tmp_path_factory.mktemp("module-daphne")
    folders = {"MEDIA_ROOT": tmp_path / "media", "QDRANT_PATH": tmp_path / "qdrant"}
    with django_db_blocker.unblock():
        yield from serve(settings, tmp_path, getattr(request.module, "DAPHNE_ENV", {}), "oracle_site.asgi:application", folders)


def serve(settings, tmp_path: Path, extra_env: dict, asgi: str, folders: dict | None = None):
    """Start daphne on a free port, yield its base URL once it answers, stop it."""
    from django.db import connection

    folders = folders or {"MEDIA_ROOT": settings.MEDIA_ROOT, "QDRANT_PATH": settings.QDRANT_PATH}
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    var_dir = tmp_path / "server-var"
    var_dir.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "oracle_site.settings",
        "DATABASE_URL": database_url(connection.settings_dict),
        "SECRET_KEY": settings.SECRET_KEY,
        "ORACLE_VAR_DIR": str(var_dir),
        "MEDIA_ROOT": str(folders["MEDIA_ROOT"]),
        "QDRANT_PATH": str(folders["QDRANT_PATH"]),
        "STATIC_MANIFEST": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PYTHONPATH": str(BASE_DIR),
        "OMP_WAIT_POLICY": "PASSIVE",
        **extra_env,
    }
    log_path = tmp_path / "daphne.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), asgi],
            cwd=BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_until_serving(process, base_url, log_path)
        _wait_until_warm(process, log_path)
        PIDS[base_url] = process.pid
        yield base_url
    finally:
        PIDS.pop(base_url, None)
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
