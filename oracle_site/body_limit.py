"""Request bodies are refused by their size before anything reads or parses them.

An anonymous 200 MB POST to /login/ once grew daphne from 350 MB to 3.3 GB for half a
minute (docs/reliability.md). Every route accepts at most REQUEST_MAX_BYTES; only the upload
routes accept a booklet (UPLOAD_MAX_BYTES plus the multipart envelope), which Django spools
to disk past FILE_UPLOAD_MAX_MEMORY_SIZE. A body over its route's limit gets a 413 that says
the limit: JSON under /api/, a short page elsewhere.

`BodySizeLimit` is the ASGI middleware (any ASGI server): it answers from Content-Length
without reading the body, and counts a streamed body, stopping at the limit.
`oracle_site.daphne_limit` applies the same rule inside daphne, before daphne buffers it.
"""

from __future__ import annotations

import json

UPLOAD_PATHS = ("/api/games/ingest", "/admin/ingest/ingestjob/add/")
MULTIPART_MARGIN = 1024 * 1024  # form fields and part headers around the PDF


def limit_for(path: str) -> int:
    from django.conf import settings

    if path.rstrip("/") in {p.rstrip("/") for p in UPLOAD_PATHS}:
        return settings.UPLOAD_MAX_BYTES + MULTIPART_MARGIN
    return settings.REQUEST_MAX_BYTES


def declared_length(headers) -> int | None:
    """Content-Length as an int; None when absent; -1 when it is not a number (refused too)."""
    for name, value in headers:
        if name.lower() == b"content-length":
            digits = value.strip()
            if not digits.isdigit():
                return -1
            # Bounded before int(): Python refuses 4,300 digits, and 19 are past any limit.
            return int(digits) if len(digits) <= 18 else 10**18
    return None


def client_language(headers) -> str:
    """English for a browser or client that prefers it, French (the UI's first language) else."""
    for name, value in headers:
        if name.lower() == b"accept-language":
            return "en" if value.decode("latin-1").strip().lower().startswith("en") else "fr"
    return "fr"


def refusal(path: str, limit: int, headers) -> tuple[int, list, bytes]:
    """Status, headers and body of the 413 for `path`, in the client's language."""
    from django.utils import translation
    from django.utils.translation import gettext as _

    with translation.override(client_language(headers)):
        message = _("Requête trop volumineuse : la limite est de %(mb)s Mo (%(bytes)d octets).") % {
            "mb": f"{limit / 2**20:.0f}",
            "bytes": limit,
        }
    if path.startswith("/api/"):
        body = json.dumps({"detail": message, "errors": [], "limit_bytes": limit}, ensure_ascii=False).encode()
        content_type = b"application/json"
    else:
        body = f"<!doctype html><title>413</title><h1>413</h1><p>{message}</p>".encode()
        content_type = b"text/html; charset=utf-8"
    response_headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    return 413, response_headers, body


class BodyTooLarge(Exception):
    pass


class BodySizeLimit:
    """ASGI middleware: a 413 before the application reads a body over its route's limit."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = limit_for(scope["path"])
        length = declared_length(scope["headers"])
        if length is not None and (length < 0 or length > limit):
            return await self._refuse(scope, send, limit)
        started = False
        received = 0

        async def counted_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        async def watched_send(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(scope, send, limit)

    async def _refuse(self, scope, send, limit):
        status, headers, body = refusal(scope["path"], limit, scope["headers"])
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
