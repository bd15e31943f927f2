"""A stand-in for TEI's POST /embed and the OpenAI-compatible POST /v1/embeddings
(reference: shared/reference/tei/NOTES.md), answering in their formats with vectors
derived from the text, and 413 past 32 inputs like TEI's default batch limit."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIM = 8


def vector_of(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255 for b in digest[:DIM]]


class TeiEmbedServer:
    def __init__(self):
        self.requests: list[tuple[str, dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append((self.path, body))
                inputs = body.get("inputs", body.get("input"))
                if len(inputs) > 32:
                    return self._reply(413, {"error": "batch size 40 > maximum allowed batch size 32",
                                             "error_type": "Validation"})
                if self.path == "/embed":
                    return self._reply(200, [vector_of(t) for t in inputs])
                if self.path == "/v1/embeddings":
                    data = [{"object": "embedding", "index": i, "embedding": vector_of(t)} for i, t in enumerate(inputs)]
                    return self._reply(200, {"object": "list", "model": "BAAI/bge-m3", "data": data[::-1]})
                self._reply(404, {"error": "Not Found", "error_type": "Validation"})

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
