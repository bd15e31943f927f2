"""A local HTTP server replaying MTGTop8 and 17Lands responses (tests/games/data/meta/, see its
README for where each sample comes from). Routes can be changed by a test (a site that
moved on to new events, or changed its pages); every request is recorded."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

DATA = Path(__file__).parent / "data" / "meta"

EVENT_91451 = (DATA / "mtgtop8_event_91451_PREM.html").read_text(encoding="utf-8")
REANIMATOR_DEC = (DATA / "mtgtop8_dec_reanimator.mwdeck").read_text(encoding="utf-8")
LTR_RATINGS = (DATA / "17lands_card_ratings_LTR_PremierDraft.json").read_text(encoding="utf-8")
FORMAT_PREM = (DATA / "mtgtop8_format_PREM.html").read_text(encoding="utf-8")


def default_routes() -> dict:
    return {
        ("/format", (("f", "PREM"),)): (200, "text/html; charset=utf-8", FORMAT_PREM),
        ("/event", (("e", "91451"), ("f", "PREM"))): (200, "text/html; charset=utf-8", EVENT_91451),
        ("/dec", (("d", "894541"),)): (200, "text/plain; charset=ISO-8859-1", REANIMATOR_DEC),
        ("/card_ratings/data", (("expansion", "LTR"), ("format", "PremierDraft"))): (200, "application/json", LTR_RATINGS),
    }


class ReplayServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes = default_routes()
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        parts = urlsplit(self.path)
        key = (parts.path, tuple(sorted(parse_qsl(parts.query))))
        self.server.requests.append(self.path)
        status, content_type, body = self.server.routes.get(key, (404, "text/html", "<html>Not found</html>"))
        data = body.encode("latin-1" if "8859" in content_type else "utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def start() -> ReplayServer:
    server = ReplayServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
