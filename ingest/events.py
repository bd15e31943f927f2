"""Progress of a job as stored events, and their server-sent-events stream.

The worker emits (`Reporter`); the web process streams (`event_stream`): it replays the
events after `Last-Event-ID`, then polls the table for new ones until `done` or `error`.
Event names and fields are the wizard's contract (docs/ingestion.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from contextlib import contextmanager
from typing import AsyncIterator, Callable

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .models import IngestEvent, IngestJob

log = logging.getLogger(__name__)

ACTS = {
    "read": _("Lecture"),
    "ocr": _("Reconnaissance optique"),
    "chunk": _("Découpage"),
    "hierarchy": _("Structuration"),
    "context": _("Analyse contextuelle"),
    "embed": _("Compréhension"),
    "index": _("Archivage"),
}
FINAL_EVENTS = ("done", "error")
PROGRESS_INTERVAL_S = 0.5
POLL_INTERVAL_S = 0.5

Listener = Callable[[str, dict], None]


class Text(str):
    """A message for the admin: the French text as a string (logs, `job.error`), which can be
    rendered again in each language of the site. Events carry both: `message` (French) and
    `messages` ({"fr": …, "en": …}), from which the job page picks its own language.

    `msgid` is marked with `gettext_noop` where it is written (makemessages finds it);
    `params` may hold lazy strings or other Texts (rendered in each language too)."""

    msgid: str
    params: dict

    def __new__(cls, msgid: str, params: dict | None = None):
        self = super().__new__(cls, _render(msgid, params or {}))
        self.msgid, self.params = msgid, params or {}
        return self

    def in_every_language(self) -> dict[str, str]:
        rendered = {}
        for code, _name in settings.LANGUAGES:
            with translation.override(code):
                rendered[code] = _render(self.msgid, self.params)
        return rendered


def _render(msgid: str, params: dict) -> str:
    text = gettext(msgid)
    if not params:
        return text
    return text % {key: _param(value) for key, value in params.items()}


def _param(value):
    """A parameter in the active language: a Text or a message with an id (ingest.pdf_guard's
    Problem, also when it is an exception's message) is rendered again; numbers stay numbers."""
    if isinstance(value, BaseException) and value.args and hasattr(value.args[0], "msgid"):
        value = value.args[0]
    if hasattr(value, "msgid") and isinstance(value, str):
        return _render(value.msgid, value.params)
    return value if isinstance(value, (int, float)) else str(value)


def message_data(message) -> dict:
    """An event's `message` and, for a Text, its `messages` in every language."""
    data = {"message": str(message)}
    if isinstance(message, Text):
        data["messages"] = message.in_every_language()
    return data


class Reporter:
    """Emits a job's events and keeps `job.progress` current (throttled, so a 300-page OCR
    does not write a row per page)."""

    def __init__(self, job: IngestJob, listener: Listener | None = None):
        self.job = job
        self.listener = listener
        self.act: str = ""
        self.timings: dict[str, float] = {}
        self._started = 0.0
        self._last_progress = 0.0
        self.checkpoint: Callable[[], None] = lambda: None  # raises to stop the job (ingest.cancellation)

    def emit(self, event: str, data: dict) -> None:
        self.job.emit(event, data)
        if self.listener:
            self.listener(event, data)

    @property
    def label(self) -> str:
        return str(ACTS.get(self.act, self.act))

    @contextmanager
    def act_scope(self, act: str, total: int = 0):
        self.checkpoint()
        self.act, self._started = act, time.monotonic()
        self._send(act, "started", 0, total)
        yield self
        self.timings[act] = round(self.timings.get(act, 0.0) + time.monotonic() - self._started, 3)
        done_total = self.job.progress.get(act, {}).get("total", total) if self.job.progress else total
        self._send(act, "done", done_total, done_total)

    def progress(self, done: int, total: int) -> None:
        self.checkpoint()  # between two pages or batches: a cancelled job stops here
        now = time.monotonic()
        if done < total and now - self._last_progress < PROGRESS_INTERVAL_S:
            return
        self._last_progress = now
        self._send(self.act, "progress", done, total)

    def warning(self, message: str) -> None:
        log.warning("ingest %s: %s", self.job.pk, message)
        self.emit("warning", message_data(message))

    def _send(self, act: str, state: str, done: int, total: int) -> None:
        elapsed = round(time.monotonic() - self._started, 3)
        self.job.set_progress(act, state=state, done=done, total=total, elapsed=elapsed)
        self.emit("act", {"act": act, "label": str(ACTS[act]), "state": state, "done": done, "total": total, "elapsed": elapsed})


# --- Server-sent events -------------------------------------------------------------------


def format_event(event: IngestEvent) -> str:
    data = json.dumps(event.data, ensure_ascii=False)
    return f"id: {event.pk}\nevent: {event.event}\ndata: {data}\n\n"


def _events_after(job_id, last_id: int, limit: int = 200) -> list[IngestEvent]:
    return list(IngestEvent.objects.filter(job_id=job_id, pk__gt=last_id).order_by("pk")[:limit])


def _job_finished(job_id) -> bool:
    return IngestJob.objects.filter(pk=job_id, status__in=[IngestJob.Status.DONE, IngestJob.Status.ERROR, IngestJob.Status.CANCELLED]).exists()


async def event_stream(
    job_id,
    last_event_id: int = 0,
    *,
    on_done: Callable[[], None] | None = None,
    poll_s: float = POLL_INTERVAL_S,
    heartbeat_s: float = 15.0,
) -> AsyncIterator[str]:
    """Replay the events after `last_event_id`, then follow the job until it ends."""
    yield "retry: 2000\n\n"
    last_sent = time.monotonic()
    while True:
        # Read the status before the events: a job that ended has stored its last event.
        finished = await sync_to_async(_job_finished)(job_id)
        events = await sync_to_async(_events_after)(job_id, last_event_id)
        for event in events:
            last_event_id = event.pk
            if event.event == "done" and on_done is not None:
                await sync_to_async(on_done)()
            yield format_event(event)
            last_sent = time.monotonic()
            if event.event in FINAL_EVENTS:
                return
        if events:
            continue
        if finished:
            return  # cancelled, or ended without a final event
        if time.monotonic() - last_sent >= heartbeat_s:
            yield ": heartbeat\n\n"
            last_sent = time.monotonic()
        await asyncio.sleep(poll_s)
