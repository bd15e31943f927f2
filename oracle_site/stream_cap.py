"""At most STREAMS_MAX_OPEN server-sent event streams open at once in a web process.

With 600 streams opened together, only 385 got a first byte within 7 s and `/login/` took
1 s (issue 29): every open stream costs the process a task, a database lookup at its start
and its share of the event loop. Past the cap a stream request is answered at once with a
503 and `Retry-After: STREAMS_RETRY_AFTER_S`, before the application runs (no lookup, no
body read), so a client is served or told to come back within the same moment, and the
pages keep their share of the process. The message is in the client's language: JSON in the
API's error shape under /api/, a short page elsewhere (the chat's EventSource).

A stream holds its slot from its arrival until the application returns (its last event
sent, or its client gone); a refused request or an error answer on a stream route frees it
at once. The count lives in the process (the event loop runs one coroutine at a time: no
lock); with several web processes each has its own cap.

An open stream costs no thread: Django runs a request's synchronous steps (its signals, the
middleware hooks without an async path, a session read) on a thread of the request's own,
kept until the response ends, so every open stream parked one (and a burst of streams
started as many, one by one, in the event loop). A served stream runs them instead in the
shared `runtime.executors.stream_sync()` pool (STREAMS_SYNC_THREADS), through asgiref's
`ThreadSensitiveContext(executor=…)`. They are short, and one at a time per stream; each
runs between `close_old_connections()` calls (a stream's next step may run on another of
the pool's threads: nothing is kept open between two steps). asgiref asks such an executor to
run one call at a time on one thread, for sync code that calls back into async code and then
into sync code again, which must land on the same thread: every middleware here is
async-capable and the stream views are coroutines, so each thread-sensitive call is a leaf
that waits for no other, and several threads cannot deadlock.
"""

from __future__ import annotations

import json
import logging
import re
import time

from asgiref.sync import ThreadSensitiveContext

from oracle_site.body_limit import client_language
from runtime import executors

logger = logging.getLogger(__name__)

# The routes that answer text/event-stream: the ask stream, a job's events, the chat's answer events.
STREAM_PATH = re.compile(r"^/(?:api/ask/stream|api/ingest/[^/]+/events|jeux/[^/]+/questions/[^/]+/events)/?$")
LOG_EVERY_S = 10.0


def is_stream(path: str) -> bool:
    return STREAM_PATH.match(path) is not None


def refusal(path: str, retry_after_s: int, headers) -> tuple[int, list, bytes]:
    """Status, headers and body of the 503 for `path`, in the client's language."""
    from django.utils import translation
    from django.utils.translation import gettext as _

    with translation.override(client_language(headers)):
        message = _("Trop de flux ouverts sur ce serveur : réessayez dans %(seconds)d s.") % {"seconds": retry_after_s}
    if path.startswith("/api/"):
        body = json.dumps({"detail": message, "errors": []}, ensure_ascii=False).encode()
        content_type = b"application/json"
    else:
        body = f"<!doctype html><title>503</title><h1>503</h1><p>{message}</p>".encode()
        content_type = b"text/html; charset=utf-8"
    response_headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(retry_after_s).encode()),
        (b"cache-control", b"no-store"),
        (b"connection", b"close"),
    ]
    return 503, response_headers, body


class StreamCap:
    """ASGI middleware: a 503 with Retry-After for a stream request past STREAMS_MAX_OPEN."""

    def __init__(self, app):
        self.app = app
        self.open = 0
        self.refused = 0
        self._logged_at = 0.0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not is_stream(scope["path"]):
            return await self.app(scope, receive, send)
        from django.conf import settings

        limit = settings.STREAMS_MAX_OPEN
        if limit > 0 and self.open >= limit:
            return await self._refuse(scope, send, settings.STREAMS_RETRY_AFTER_S)
        self.open += 1
        try:
            async with ThreadSensitiveContext(executor=executors.stream_sync()):
                return await self.app(scope, receive, send)
        finally:
            self.open -= 1

    async def _refuse(self, scope, send, retry_after_s):
        self.refused += 1
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY_S:
            self._logged_at = now
            logger.warning("stream cap: %d streams open, %d refused so far (STREAMS_MAX_OPEN)", self.open, self.refused)
        status, headers, body = refusal(scope["path"], retry_after_s, scope["headers"])
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
