"""Progress of a job as stored events, and their server-sent-events stream.

The worker emits (`Reporter`; each stored event is also published to the job's channel-layer
group, `IngestJob.emit`); the web process streams (`event_stream`): it subscribes to that
group, replays the stored events after `Last-Event-ID`, then relays the live ones until the
job's last `done` or `error` (one followed by a `retry`, the job relaunched, is not its last).
Event names and fields are the wizard's contract (docs/ingestion.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import AsyncIterator, Callable

from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from runtime import broadcast

from .models import PREVIOUS_EVENT_KEY, IngestEvent, IngestJob

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
REPLAY_PAGE = 200

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


def never_stops(force: bool = False) -> None:
    """The checkpoint of a job nothing may stop: not yet armed, or its rules already swapped."""


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
        self.checkpoint: Callable[..., None] = never_stops  # raises to stop the job (ingest.cancellation)

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


def crosses_processes() -> bool:
    """True with channels-redis: a worker's events reach this web process live. The in-memory
    layer only carries what this process publishes (an ingest runs in the worker)."""
    return not isinstance(get_channel_layer(), InMemoryChannelLayer)


def format_event(event: IngestEvent) -> str:
    return _format(event.pk, event.event, event.data)


def _format(event_id, name: str, data: dict) -> str:
    return f"id: {event_id}\nevent: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _events_after(job_id, last_id: int, limit: int = REPLAY_PAGE) -> list[IngestEvent]:
    return list(IngestEvent.objects.filter(job_id=job_id, pk__gt=last_id).order_by("pk")[:limit])


def _relaunched_after(job_id, event_id: int) -> bool:
    """A `retry` was stored after this event: the job ran again after that `done` or `error`."""
    return IngestEvent.objects.filter(job_id=job_id, pk__gt=event_id, event="retry").exists()


def _job_finished(job_id) -> bool:
    """Over, or gone with its booklet (deleted while a client followed it)."""
    over = [IngestJob.Status.DONE, IngestJob.Status.ERROR, IngestJob.Status.CANCELLED]
    return not IngestJob.objects.filter(pk=job_id).exclude(status__in=over).exists()


class Relay:
    """What one stream has sent: the last event id (to skip duplicates) and whether it ended."""

    def __init__(self, job_id, last_id: int, on_done: Callable[[], None] | None):
        self.job_id, self.last_id, self.on_done = job_id, last_id, on_done
        self.ended = False
        self.reads = 0  # database reads of stored events (the tests count them)

    async def stored(self) -> list[str]:
        """Every stored event after the last one sent; ends the stream on the job's last final
        event, or when the job is gone without one (a cancelled scheduled upload is deleted)."""
        out: list[str] = []  # a long job's replay: a few thousand short lines at most
        while not self.ended:
            # Read the status before the events: a job that ended has stored its last event.
            finished = await sync_to_async(_job_finished)(self.job_id)
            rows = await sync_to_async(_events_after)(self.job_id, self.last_id)
            self.reads += 1
            for row in rows:
                out.append(await self.send(row.pk, row.event, row.data, row.created_at))
                if self.ended:
                    break
            if len(rows) < REPLAY_PAGE:
                self.ended = self.ended or finished
                break
        return out

    async def live(self, event: broadcast.LiveEvent) -> list[str]:
        if event.id is None or int(event.id) <= self.last_id:
            return []  # already sent by the replay (subscribed first, then read)
        data = dict(event.data)
        previous = data.pop(PREVIOUS_EVENT_KEY, None)
        if previous is None or previous > self.last_id:
            # The job's event before this one was not sent: the layer dropped it on the way (a
            # full channel). Everything up to this one is stored: read it, in order.
            return await self.stored()
        return [await self.send(int(event.id), event.name, data, timezone.now())]  # stored a moment ago

    async def send(self, event_id: int, name: str, data: dict, at: datetime) -> str:
        """One event, with `at`, when it was stored: a page opened later counts its estimate
        down from then. A final event ends the stream unless the job was relaunched after it:
        that one is sent with `relaunched` (the page goes on to the new run)."""
        self.last_id = event_id
        data = {**data, "at": at.isoformat(timespec="milliseconds")}
        if name == "done" and self.on_done is not None:
            await sync_to_async(self.on_done)()
        if name in FINAL_EVENTS and await sync_to_async(_relaunched_after)(self.job_id, event_id):
            data["relaunched"] = True
        else:
            self.ended = name in FINAL_EVENTS
        return _format(event_id, name, data)


@dataclass
class _Pacing:
    """When the relay reads the stored events again and sends a heartbeat (`event_stream`)."""

    heartbeat_s: float
    poll_s: float | None  # None: nothing polls (channels-redis)
    fallback_poll_s: float
    last_sent: float = field(default_factory=time.monotonic)
    last_read: float = field(default_factory=time.monotonic)
    layer_failed: bool = False

    def wait(self) -> float:
        deadline = self.last_sent + self.heartbeat_s
        if self.poll_s is not None:
            deadline = min(deadline, self.last_read + self.poll_s)
        return max(deadline - time.monotonic(), 0.01)


async def event_stream(
    job_id,
    last_event_id: int = 0,
    *,
    on_done: Callable[[], None] | None = None,
    heartbeat_s: float = 15.0,
    fallback_poll_s: float = 2.0,
    relay: Relay | None = None,
) -> AsyncIterator[str]:
    """Replay the events after `last_event_id`, then relay the job's live events until it ends.

    Subscribes to the job's group first, then reads the stored events (an event published in
    between arrives twice: its id is skipped). With channels-redis nothing polls: the stored
    events are read again only after `heartbeat_s` of silence, in case one was lost. With the
    in-memory layer the worker's events never reach this process, so the stored events are
    read every `fallback_poll_s` instead (the embedded default's limit, docs/ingestion.md);
    so they are too if the layer fails (Redis gone)."""
    relay = relay or Relay(job_id, last_event_id, on_done)
    yield "retry: 2000\n\n"
    async with broadcast.subscribe(broadcast.ingest_group(job_id)) as live:
        for chunk in await relay.stored():
            yield chunk
        pacing = _Pacing(heartbeat_s, None if crosses_processes() else fallback_poll_s, fallback_poll_s)
        while not relay.ended:
            chunks = await _next_chunks(job_id, live, relay, pacing)
            for chunk in chunks:
                yield chunk
            if chunks:
                pacing.last_sent = time.monotonic()


async def _next_chunks(job_id, live, relay: Relay, pacing: _Pacing) -> list[str]:
    """What to send now: a live event; or, when a poll or a heartbeat is due, the stored events
    (a heartbeat comment if there are none); or nothing yet."""
    event = await _receive(job_id, live, pacing)
    if event is not None:
        return await relay.live(event)
    now = time.monotonic()
    heartbeat_due = now - pacing.last_sent >= pacing.heartbeat_s
    if not heartbeat_due and (pacing.poll_s is None or now - pacing.last_read < pacing.poll_s):
        return []
    chunks, pacing.last_read = await relay.stored(), now
    if not chunks and not relay.ended and heartbeat_due:
        chunks = [": heartbeat\n\n"]
    return chunks


async def _receive(job_id, live, pacing: _Pacing) -> broadcast.LiveEvent | None:
    """The next live event within the pacing's wait; None after the wait or once the layer
    failed (the stored events are read every `fallback_poll_s` from then on)."""
    wait = pacing.wait()
    if pacing.layer_failed:
        await asyncio.sleep(wait)
        return None
    try:
        return await live.receive(wait)
    except Exception:  # noqa: BLE001 - the stored events are the truth
        log.warning("ingest %s: live events unavailable, reading stored ones", job_id, exc_info=True)
        pacing.layer_failed, pacing.poll_s = True, pacing.fallback_poll_s
        return None
