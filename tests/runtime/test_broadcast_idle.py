"""An idle subscription through Redis: waiting longer than channels-redis' 5 s blocking pop
returns None at the timeout (redis-py 8 raised a TimeoutError there), and the next event
still arrives."""

import asyncio
import time
import uuid

from runtime import broadcast
from tests.runtime.test_broadcast import REDIS_LAYERS, layers  # noqa: F401 (fixture)


def test_an_idle_redis_subscription_times_out_quietly_and_still_receives(layers):  # noqa: F811
    layers(REDIS_LAYERS)
    group = f"ingest.{uuid.uuid4()}"

    async def run():
        async with broadcast.subscribe(group) as events:
            started = time.monotonic()
            idle = await events.receive(6.5)
            waited = time.monotonic() - started
            await broadcast.apublish(group, "act", {"n": 1}, event_id=7)
            return idle, waited, await events.receive(5)

    idle, waited, event = asyncio.run(run())
    assert idle is None and 6.4 <= waited < 8
    assert event == broadcast.LiveEvent("act", {"n": 1}, "7")
