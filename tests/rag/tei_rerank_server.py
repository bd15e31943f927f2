"""A stand-in for TEI's POST /rerank (reference: shared/reference/tei/NOTES.md): it answers in
TEI's format — [{"index": i, "score": s}] sorted by score, descending — with scores given
by the test (a function of the text), and records each request."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class TeiRerankServer:
    def __init__(self, score_of):
        self.score_of = score_of
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                if self.path != "/rerank":
                    return self._reply(404, {"error": "Not Found", "error_type": "Validation"})
                if len(body["texts"]) > 32:
                    return self._reply(413, {"error": "batch size > 32", "error_type": "Validation"})
                ranked = sorted(
                    ({"index": i, "score": server.score_of(t)} for i, t in enumerate(body["texts"])),
                    key=lambda item: item["score"],
                    reverse=True,
                )
                self._reply(200, ranked)

            def _reply(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

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
