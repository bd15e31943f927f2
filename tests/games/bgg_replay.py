"""A local BoardGameGeek XML API2 that replays recorded responses (tests/games/bgg_xml/).

Real HTTP on 127.0.0.1: the client under test goes through httpx exactly as it would to
boardgamegeek.com. Like BGG since late 2025, every call needs `Authorization: Bearer`.
`hiccups` scripts the non-200 answers BGG gives (202 "try later", 429, 503) before the
recorded one.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

XML_DIR = Path(__file__).parent / "bgg_xml"
UNAUTHORIZED = "Unauthorized. See https://boardgamegeek.com/using_the_xml_api"
TRY_LATER = (
    "Your request for this collection has been accepted and will be processed. "
    "Please try again later for access."
)
RATE_LIMITED = "<html><body><h1>Rate limit exceeded</h1></body></html>"


@dataclass
class Request:
    endpoint: str
    params: dict
    authorization: str
    at: float


@dataclass
class FakeBgg:
    token: str = "test-bgg-token"
    hiccups: dict[str, list[int]] = field(default_factory=dict)  # endpoint -> statuses to answer first
    overrides: dict[str, str] = field(default_factory=dict)  # file name -> replacement XML
    requests: list[Request] = field(default_factory=list)

    def calls(self, endpoint: str) -> list[Request]:
        return [r for r in self.requests if r.endpoint == endpoint]

    def answer(self, endpoint: str, params: dict, authorization: str) -> tuple[int, str]:
        self.requests.append(Request(endpoint, params, authorization, time.monotonic()))
        if authorization != f"Bearer {self.token}":
            return 401, UNAUTHORIZED
        pending = self.hiccups.get(endpoint)
        if pending:
            status = pending.pop(0)
            return status, {202: TRY_LATER, 429: RATE_LIMITED}.get(status, "Service Unavailable")
        name = self._file_for(endpoint, params, self.overrides)
        if name in self.overrides:
            return 200, self.overrides[name]
        path = XML_DIR / name
        if not path.exists():
            return 200, '<?xml version="1.0" encoding="utf-8"?><error message="Not Found"/>'
        return 200, path.read_text(encoding="utf-8")

    @staticmethod
    def _file_for(endpoint: str, params: dict, overrides: dict) -> str:
        if endpoint == "forum":
            page = params.get("page", "1")
            if page == "1":
                return "forum.xml"
            name = f"forum-page{page}.xml"
            return name if name in overrides else "forum-page2.xml"  # recorded: past the end
        if endpoint in ("thread", "thing"):
            return f"{endpoint}-{params.get('id')}.xml"
        return f"{endpoint}.xml"


def serve(fake: FakeBgg):
    """Start the server; returns (base_url, stop)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            url = urlparse(self.path)
            endpoint = url.path.rstrip("/").rsplit("/", 1)[-1]
            params = {k: v[0] for k, v in parse_qs(url.query).items()}
            status, body = fake.answer(endpoint, params, self.headers.get("Authorization", ""))
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/xml; charset=utf-8" if status == 200 else "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):  # keep test output quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop():
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}/xmlapi2/", stop


@pytest.fixture
def private_cache(settings, tmp_path):
    """The last-run report lives in the shared cache: give each test its own."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": str(tmp_path)}
    }


@pytest.fixture
def fake_bgg(settings, private_cache):
    """The replaying server, with Oracle's settings pointing at it (token set, fast pacing)."""
    fake = FakeBgg()
    base_url, stop = serve(fake)
    settings.BGG_BASE_URL = base_url
    settings.BGG_API_TOKEN = fake.token
    settings.BGG_FORUM_SYNC_ENABLED = True
    settings.BGG_MIN_INTERVAL_S = 0.01
    fake.base_url = base_url
    yield fake
    stop()
