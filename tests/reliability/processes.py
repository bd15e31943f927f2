"""Real Oracle processes for fault tests: daphne (web) and `manage.py qcluster` (worker) on
the test database, started and killed by the test, plus a slow OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.support.daphne import BASE_DIR, _wait_until_serving, database_url, free_port


def redis_test_db() -> int:
    """A Redis database (2–15) of this test process's own, flushed by the tests that use it:
    the pytest-xdist workers of one run get different ones (gw0 → 2, gw1 → 3, …), a run
    without workers one chosen by its process id."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker.startswith("gw") and worker[2:].isdigit():
        return int(worker[2:]) % 14 + 2
    return os.getpid() % 14 + 2


def server_env(settings, var_dir: Path, **extra) -> dict[str, str]:
    from django.db import connection

    var_dir.mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "oracle_site.settings",
        "DATABASE_URL": database_url(connection.settings_dict),
        "SECRET_KEY": settings.SECRET_KEY,
        "ORACLE_VAR_DIR": str(var_dir),  # shared file cache: heartbeats, rate limits
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "QDRANT_PATH": str(settings.QDRANT_PATH),
        "STATIC_MANIFEST": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PYTHONPATH": str(BASE_DIR),
        "OMP_WAIT_POLICY": "PASSIVE",
        "Q_POLL_S": "0.2",
        "Q_SYNC": "false",
        **{k: str(v) for k, v in extra.items()},
    }


class Process:
    def __init__(self, args: list[str], env: dict, log_path: Path):
        self.log_path = log_path
        with open(log_path, "ab") as log:
            self.popen = subprocess.Popen(
                args, cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def kill(self) -> None:
        """SIGKILL to the process and its children: no handler, no cleanup, like the OOM killer."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.popen.wait(timeout=10)

    def stop(self) -> None:
        if self.popen.poll() is not None:
            return
        os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()


def start_daphne(env: dict, log_path: Path, port: int | None = None) -> tuple[Process, str]:
    port = port or free_port()
    base_url = f"http://127.0.0.1:{port}"
    process = Process([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "oracle_site.asgi:application"], env, log_path)
    _wait_until_serving(process.popen, base_url, log_path)
    return process, base_url


def start_qcluster(env: dict, log_path: Path) -> Process:
    return Process([sys.executable, "manage.py", "qcluster"], env, log_path)


def wait_for(condition, timeout: float, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


class SlowOpenAI:
    """An OpenAI-compatible /chat/completions: the answer model streams one word every
    `delay_s` for `words` words; any other model answers at once."""

    def __init__(self, slow_model: str, words: int = 120, delay_s: float = 0.5):
        self.slow_model, self.words, self.delay_s = slow_model, words, delay_s
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"data": []}')

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                slow = body.get("model") == outer.slow_model
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for i in range(outer.words if slow else 1):
                        text = f"mot{i} " if slow else "rules"
                        chunk = {"choices": [{"index": 0, "delta": {"content": text}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        if slow:
                            time.sleep(outer.delay_s)
                    self.wfile.write(b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
