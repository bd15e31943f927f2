"""Live events through the channel layer: answer and ingest events are published to a group
(`answer.<question id>`, `ingest.<job id>`) and the SSE endpoints relay what they receive.

The layer is Django's CHANNEL_LAYERS: in-memory on the embedded default (one process: events
reach the web process's own subscribers only), channels-redis in the scaled setup (any worker
or web process reaches every web process).

Publishing happens from plain threads (the answer pool, an ingest worker). Both layers are
asyncio objects, so a thread never touches one directly:
- the in-memory layer's queues belong to the event loop its subscribers wait on (daphne's):
  events are handed to that loop; with no subscriber in this process yet, nobody can be
  listening and the event is dropped;
- channels-redis is reached from one long-lived publisher loop in a daemon thread (one
  connection pool, not one per event).
Either way one task per loop sends the events in the order they were published, and
`publish` never raises nor waits: a live listener is a convenience, the stored state (the
Question, the IngestEvent rows) stays the truth that a late client replays.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from contextlib import asynccontextmanager
from dataclasses import dataclass

from channels.layers import InMemoryChannelLayer, get_channel_layer

log = logging.getLogger(__name__)

MESSAGE_TYPE = "live.event"
CLOSING_TYPE = "live.closing"  # sent by a subscription to itself, to end its pending receive
CLOSE_WAIT_S = 2.0


def answer_group(question_id) -> str:
    return f"answer.{question_id}"


def ingest_group(job_id) -> str:
    return f"ingest.{job_id}"


@dataclass(frozen=True)
class LiveEvent:
    name: str
    data: dict
    id: str | None = None  # the stored event's id, for Last-Event-ID (ingest events have one)


def _message(name: str, data: dict, event_id) -> dict:
    return {"type": MESSAGE_TYPE, "name": name, "data": data, "id": None if event_id is None else str(event_id)}


class _Sender:
    """Sends layer messages in publication order from one event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.queue: asyncio.Queue | None = None
        self.started = threading.Event()
        loop.call_soon_threadsafe(self._start)

    def _start(self) -> None:
        self.queue = asyncio.Queue()
        self.loop.create_task(self._drain())
        self.started.set()

    async def _drain(self) -> None:
        while True:
            group, message = await self.queue.get()
            layer = get_channel_layer()
            try:
                if layer is not None:
                    await layer.group_send(group, message)
            except Exception:  # a lost live event: the stored state is still replayed
                log.warning("live event to %s not sent", group, exc_info=True)
            finally:
                self.queue.task_done()

    def flush(self, timeout: float) -> None:
        try:
            if asyncio.get_running_loop() is self.loop:
                return  # waiting here would block the very loop that drains the queue
        except RuntimeError:
            pass
        if not self.started.wait(timeout=timeout):
            return
        try:
            asyncio.run_coroutine_threadsafe(self.queue.join(), self.loop).result(timeout)
        except Exception:
            pass

    def submit(self, group: str, message: dict) -> None:
        if not self.started.wait(timeout=5):
            return
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (group, message))
        except RuntimeError:  # the loop is closed (the server stopped)
            pass


_lock = threading.Lock()
_subscribers_sender: _Sender | None = None  # the in-memory layer: the subscribers' loop
_publisher_sender: _Sender | None = None  # a network layer: a loop of our own


def _remember_subscriber_loop() -> None:
    """Called in the subscribing coroutine: that loop owns the in-memory layer's queues."""
    global _subscribers_sender
    loop = asyncio.get_running_loop()
    with _lock:
        if _subscribers_sender is None or _subscribers_sender.loop is not loop or loop.is_closed():
            _subscribers_sender = _Sender(loop)


def _own_loop_sender() -> _Sender:
    global _publisher_sender
    with _lock:
        if _publisher_sender is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="live-events", daemon=True).start()
            _publisher_sender = _Sender(loop)
        return _publisher_sender


def publish(group: str, name: str, data: dict, *, event_id=None) -> None:
    """Publish an event from any thread outside an event loop; never raises, never waits."""
    layer = get_channel_layer()
    if layer is None:
        return
    if isinstance(layer, InMemoryChannelLayer):
        sender = _subscribers_sender
        if sender is None or sender.loop.is_closed():
            return  # no subscriber has ever been in this process: nobody listens
    else:
        sender = _own_loop_sender()
    sender.submit(group, _message(name, data, event_id))


def flush(timeout: float = 5.0) -> None:
    """Wait until what this process published has been handed to the layer (a command that
    publishes and then exits calls it: the publisher thread is a daemon)."""
    for sender in (_publisher_sender, _subscribers_sender):
        if sender is not None and not sender.loop.is_closed():
            sender.flush(timeout)


async def apublish(group: str, name: str, data: dict, *, event_id=None) -> None:
    """Publish from a coroutine (the layer is then used on the caller's loop)."""
    layer = get_channel_layer()
    if layer is not None:
        try:
            await layer.group_send(group, _message(name, data, event_id))
        except Exception:
            log.warning("live event to %s not sent", group, exc_info=True)


class Subscription:
    """A channel in a group, read by one coroutine at a time. The layer's receive is not
    cancelled: channels-redis pops every channel of the process from one Redis list, and a
    pop cancelled as a message arrives loses it, its own or another subscription's
    (eval/reports/live-events-redis.md). A wait that times out leaves the receive pending for
    the next call; `close` ends it with a message of its own."""

    def __init__(self, layer, channel: str):
        self.layer, self.channel = layer, channel
        self._pending: asyncio.Future | None = None

    async def receive(self, timeout: float | None = None) -> LiveEvent | None:
        """The next event, or None when `timeout` seconds pass without one; raises what the
        layer raised (Redis gone)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            if self._pending is None:
                self._pending = asyncio.ensure_future(self.layer.receive(self.channel))
            left = None if deadline is None else max(deadline - loop.time(), 0)
            done, _ = await asyncio.wait({self._pending}, timeout=left)
            if not done:
                return None
            received, self._pending = self._pending, None
            message = received.result()
            if message.get("type") == MESSAGE_TYPE:
                return LiveEvent(message["name"], message["data"], message.get("id"))

    async def close(self) -> None:
        """End the pending receive: a closing message to this channel completes it as any
        message would; cancelled only when that does not arrive (the layer is gone), and
        then waited for a bounded time (a cancel redis-py swallows would wait forever)."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        if not pending.done():
            try:
                await self.layer.send(self.channel, {"type": CLOSING_TYPE})
            except Exception:  # noqa: BLE001 - the layer is gone: the cancel below ends it
                log.debug("closing message to %s not sent", self.channel, exc_info=True)
            if not (await asyncio.wait({pending}, timeout=CLOSE_WAIT_S))[0]:
                pending.cancel()
                await asyncio.wait({pending}, timeout=CLOSE_WAIT_S)
        if pending.done() and not pending.cancelled():
            pending.exception()  # read: a receive that failed is not reported as never retrieved


@asynccontextmanager
async def subscribe(group: str):
    """`async with subscribe(group) as events: event = await events.receive(timeout)`.
    Subscribe BEFORE reading the stored state, so nothing published in between is missed
    (an event may then arrive twice: relays skip ids they already sent)."""
    layer = get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):
        _remember_subscriber_loop()
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    subscription = Subscription(layer, channel)
    try:
        yield subscription
    finally:
        try:
            await layer.group_discard(group, channel)  # first: nothing more arrives after the closing message
        finally:
            await subscription.close()
