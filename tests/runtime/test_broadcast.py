"""Live events: what a thread (an answer, an ingest worker) publishes reaches the subscribers,
in order, on the embedded in-memory layer and through Redis from another process."""

import asyncio
import subprocess
import sys
import threading
import uuid

import pytest
from channels.layers import channel_layers

from oracle_site.settings import CHANNEL_REDIS_SOCKET_TIMEOUT_S
from runtime import broadcast

REDIS_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [{"address": "redis://127.0.0.1:6379/0", "socket_timeout": CHANNEL_REDIS_SOCKET_TIMEOUT_S}],
                   "capacity": 2000},
    }
}


@pytest.fixture
def layers(settings):
    """A fresh layer per test (channels caches them per alias)."""

    def use(config):
        settings.CHANNEL_LAYERS = config
        channel_layers.backends.clear()

    yield use
    channel_layers.backends.clear()


def publish_from_thread(group, count):
    def run():
        for n in range(count):
            broadcast.publish(group, "token", {"n": n}, event_id=n)
        broadcast.publish(group, "done", {})

    thread = threading.Thread(target=run)
    thread.start()
    return thread


async def received(group, start_publishing, timeout=5.0):
    names, numbers = [], []
    async with broadcast.subscribe(group) as events:
        publisher = start_publishing()
        while True:
            event = await events.receive(timeout)
            assert event is not None, f"no event within {timeout}s after {len(numbers)}"
            names.append(event.name)
            if event.name == "done":
                break
            numbers.append(event.data["n"])
            assert event.id == str(event.data["n"])
    if publisher is not None:
        publisher.join()
    return names, numbers


def test_in_memory_events_from_a_thread_arrive_all_and_in_order(layers):
    layers({"default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 2000}}})
    group = f"answer.{uuid.uuid4()}"
    names, numbers = asyncio.run(received(group, lambda: publish_from_thread(group, 500)))
    assert numbers == list(range(500)) and names[-1] == "done"


def test_an_in_memory_event_with_nobody_subscribed_is_dropped_without_error(layers):
    layers({"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}})
    broadcast.publish(f"ingest.{uuid.uuid4()}", "act", {"n": 1})  # must not raise nor block


def test_a_subscriber_hears_only_its_own_group(layers):
    layers({"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}})
    mine, other = f"answer.{uuid.uuid4()}", f"answer.{uuid.uuid4()}"

    def both():
        def run():
            broadcast.publish(other, "token", {"n": -1})
            broadcast.publish(mine, "token", {"n": 0}, event_id=0)
            broadcast.publish(mine, "done", {})

        thread = threading.Thread(target=run)
        thread.start()
        return thread

    names, numbers = asyncio.run(received(mine, both))
    assert numbers == [0]


def test_events_published_by_another_process_arrive_through_redis(layers):
    """The scaled setup: an ingest worker process publishes, a web process relays."""
    layers(REDIS_LAYERS)
    group = f"ingest.{uuid.uuid4()}"
    script = f"""
import django, os
os.environ["DJANGO_SETTINGS_MODULE"] = "tests.settings"
django.setup()
from django.conf import settings
settings.CHANNEL_LAYERS = {REDIS_LAYERS!r}
from runtime import broadcast
for n in range(200):
    broadcast.publish({group!r}, "act", {{"n": n}}, event_id=n)
broadcast.publish({group!r}, "done", {{}})
broadcast.flush()  # the publisher thread is a daemon: hand everything over before exiting
"""

    def other_process():
        return subprocess.Popen([sys.executable, "-c", script])

    async def run():
        names, numbers = [], []
        async with broadcast.subscribe(group) as events:
            process = other_process()
            while (event := await events.receive(30)) is not None and event.name != "done":
                numbers.append(event.data["n"])
            names.append(getattr(event, "name", None))
        process.wait(timeout=30)
        return names, numbers

    names, numbers = asyncio.run(run())
    assert names == ["done"] and numbers == list(range(200))


async def publish_numbered(group: str, count: int, pause_s) -> None:
    """`count` numbered events, then `done`, through the layer from this loop."""
    for n in range(count):
        await broadcast.apublish(group, "act", {"n": n}, event_id=n)
        if pause_s(n):
            await asyncio.sleep(pause_s(n))
    await broadcast.apublish(group, "done", {})


def test_short_waits_on_a_redis_subscription_lose_no_event(layers):
    """A relay waits in short turns (a heartbeat, a poll's pace): a turn that ends as an event
    arrives must not drop it — the last `done` of a job lost that way left a page silent."""
    layers(REDIS_LAYERS)
    group = f"ingest.{uuid.uuid4()}"
    count = 1000

    async def run():
        numbers, empty_turns = [], 0
        async with broadcast.subscribe(group) as events:
            publisher = asyncio.ensure_future(publish_numbered(group, count, lambda n: 0.002 * (n % 3)))
            deadline = asyncio.get_running_loop().time() + 60
            while asyncio.get_running_loop().time() < deadline:
                event = await events.receive(0.001 * (len(numbers) % 7))
                if event is None:
                    empty_turns += 1
                elif event.name == "done":
                    break
                else:
                    numbers.append(event.data["n"])
            await publisher
        return numbers, empty_turns

    numbers, empty_turns = asyncio.run(run())
    assert empty_turns > 100  # the waits did end while events were on their way
    assert numbers == list(range(count))


def test_subscriptions_closing_beside_a_busy_one_take_none_of_its_events(layers):
    """Streams end all the time beside others in one web process, and channels-redis reads
    every channel of the process from one Redis list: closing one must neither lose another's
    events nor hang."""
    layers(REDIS_LAYERS)
    group = f"ingest.{uuid.uuid4()}"
    count = 1500

    async def churn(stop: asyncio.Event) -> int:
        closes = 0
        while not stop.is_set():
            async with broadcast.subscribe(f"answer.{uuid.uuid4()}") as other:
                await other.receive(0.001 * (closes % 10))
            closes += 1
        return closes

    async def run():
        numbers, stop = [], asyncio.Event()
        async with broadcast.subscribe(group) as events:
            churner = asyncio.ensure_future(churn(stop))
            publisher = asyncio.ensure_future(publish_numbered(group, count, lambda n: 0.001 if n % 3 == 0 else 0))
            while (event := await events.receive(10)) is not None and event.name != "done":
                numbers.append(event.data["n"])
            stop.set()
            await publisher
            closes = await asyncio.wait_for(churner, 10)
        return numbers, closes

    numbers, closes = asyncio.run(run())
    assert closes > 50
    assert numbers == list(range(count))
