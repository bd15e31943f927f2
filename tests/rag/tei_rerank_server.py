"""A stand-in for TEI's POST /rerank (reference: shared/reference/tei/NOTES.md): it answers in
TEI's format — [{"index": i, "score": s}] sorted by score, descending — with scores given
by the test (a function of the text), and records each request."""

from __future__ import annotations

from tests.support.json_stub import JsonStubServer


class TeiRerankServer(JsonStubServer):
    def __init__(self, score_of):
        super().__init__(self._route)
        self.score_of = score_of

    @property
    def bodies(self) -> list[dict]:
        return [body for _, body in self.requests]

    def _route(self, path: str, body: dict):
        if path != "/rerank":
            return 404, {"error": "Not Found", "error_type": "Validation"}
        if len(body["texts"]) > 32:
            return 413, {"error": "batch size > 32", "error_type": "Validation"}
        scored = ({"index": i, "score": self.score_of(t)} for i, t in enumerate(body["texts"]))
        return 200, sorted(scored, key=lambda item: item["score"], reverse=True)
