"""A stand-in for TEI's POST /embed and the OpenAI-compatible POST /v1/embeddings
(reference: shared/reference/tei/NOTES.md), answering in their formats with vectors
derived from the text, and 413 past 32 inputs like TEI's default batch limit."""

from __future__ import annotations

import hashlib

from tests.support.json_stub import JsonStubServer

DIM = 8


def vector_of(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255 for b in digest[:DIM]]


class TeiEmbedServer(JsonStubServer):
    def __init__(self):
        super().__init__(self._route)

    @staticmethod
    def _route(path: str, body: dict):
        inputs = body.get("inputs", body.get("input"))
        if len(inputs) > 32:
            return 413, {"error": f"batch size {len(inputs)} > maximum allowed batch size 32", "error_type": "Validation"}
        if path == "/embed":
            return 200, [vector_of(t) for t in inputs]
        if path == "/v1/embeddings":
            data = [{"object": "embedding", "index": i, "embedding": vector_of(t)} for i, t in enumerate(inputs)]
            return 200, {"object": "list", "model": "BAAI/bge-m3", "data": data[::-1]}
        return 404, {"error": "Not Found", "error_type": "Validation"}
