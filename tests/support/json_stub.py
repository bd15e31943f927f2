"""A local HTTP server answering JSON POSTs through a function: the base of the stand-ins
that replay a remote service's format (TEI /embed, /rerank…) over real HTTP."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

Route = Callable[[str, dict], tuple[int, object]]


def send_json(handler: BaseHTTPRequestHandler, status: int, payload, headers: dict | None = None) -> None:
    """Answer the request `handler` is serving with `payload` as JSON (every stand-in's way)."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


class JsonStubServer:
    """`route(path, body) -> (status, payload)`; every request is kept in `requests`."""

    def __init__(self, route: Route):
        self.requests: list[tuple[str, dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append((self.path, body))
                send_json(self, *route(self.path, body))

            def log_message(self, *args):
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()
