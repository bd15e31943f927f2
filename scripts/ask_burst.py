"""The ask stream's work in the event loop, without HTTP: N `POST /api/ask/stream` calls made
at once on the ASGI application (`oracle_site.asgi.application`) in one event loop, in a
fresh temporary database; prints when each call's `meta` event was sent.

    .venv/bin/python -m scripts.ask_burst                     # 50 calls, 4 bursts
    .venv/bin/python -m scripts.ask_burst --streams 50 --bursts 1 --trace
    .venv/bin/python -m scripts.ask_burst --profile           # cProfile of the event loop, last burst

`scripts.load_test` measures what a player sees (daphne, the client and the worker on the same
cores, so a run varies by tens of milliseconds); this measures only the application's share
of it, the same way every time, in ~15 s, with load_test's settings, database and token
(rate limits 1000/m: more asks in a minute show as 429s). The first burst finds neither the
token nor the game remembered (questions/lookups.py), the next ones do
(ASK_LOOKUP_CACHE_S). `--trace`
adds when each lookup was asked for and when it ran in the setup pool; `--profile` the
profile of the last burst, by cumulative and by own time. Nothing is answered but the
questions (the game's one chunk is not indexed). Figures, no pass/fail (docs/reliability.md).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
ASK_PATH = "/api/ask/stream"


def prepare(oracle) -> tuple[str, str]:
    """`scripts.load_test`'s database, settings and player token (no server started), and a
    game: (key, game id)."""
    key, _admin_headers = oracle.prepare()
    from games.models import Chunk, Game

    game = Game.objects.create(name="Burst", slug="burst")
    # One chunk row, so the ask API takes the game (a game none of whose booklets was read is
    # refused with a 409); nothing is indexed, so nothing is answered but the questions.
    Chunk.objects.create(game=game, collection="burst", text="Burst.", page_start=1, page_end=1)
    return key, str(game.pk)


class Trace:
    """When each lookup was asked for (`lookups.coalesced`) and when it ran (in the pool)."""

    def __init__(self):
        self.marks: list[tuple[str, float, float]] = []
        self.t0 = 0.0

    def install(self) -> None:
        from questions import api, auth, lookups

        def ran(name, fn):
            def timed(*args):
                started = time.perf_counter()
                try:
                    return fn(*args)
                finally:
                    self.marks.append((f"{name} lookup ran", started, time.perf_counter()))

            return timed

        auth.find_token = ran("token", auth.find_token)
        api.find_game = ran("game", api.find_game)
        coalesced = lookups.coalesced

        async def asked(key, fn, *args):
            now = time.perf_counter()
            self.marks.append((f"{key[0]} lookup asked", now, now))
            return await coalesced(key, fn, *args)

        lookups.coalesced = asked

    def lines(self) -> list[str]:
        first: dict[str, tuple[float, float, int]] = {}
        for name, start, end in self.marks:
            seen = first.get(name)
            first[name] = (seen[0], seen[1], seen[2] + 1) if seen else (start, end, 1)
        self.marks.clear()
        return [f"  {name} {count}×, first at {(start - self.t0) * 1000:.1f} ms" + (f" for {(end - start) * 1000:.1f} ms" if end > start else "")
                for name, (start, end, count) in sorted(first.items(), key=lambda item: item[1][0])]  # fmt: skip


async def one_ask(application, key: str, body: bytes, t0: float) -> tuple[int, float | None]:
    """(status, seconds from `t0` to the body chunk holding `meta`); the stream is then dropped."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": ASK_PATH, "raw_path": ASK_PATH.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {key}".encode()),
                    (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    meta: asyncio.Future = asyncio.get_running_loop().create_future()
    gone = asyncio.Event()
    delivered = False

    async def receive():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await gone.wait()  # the client stays until its `meta`, then hangs up
        return {"type": "http.disconnect"}

    async def send(message):
        if meta.done():
            return
        if message["type"] == "http.response.start" and message["status"] != 200:
            meta.set_result((message["status"], None))
        elif message["type"] == "http.response.body" and b"event: meta" in message.get("body", b""):
            meta.set_result((200, time.perf_counter() - t0))

    app = asyncio.ensure_future(application(scope, receive, send))
    try:
        return await asyncio.wait_for(asyncio.shield(meta), 30)
    finally:
        gone.set()
        await asyncio.wait_for(app, 30)  # Django ends the stream on the disconnect


def summary(results: list[tuple[int, float | None]]) -> str:
    times = sorted(t for status, t in results if status == 200 and t is not None)
    statuses = sorted({status for status, _t in results})
    if not times:
        return f"no meta (statuses {statuses})"
    ms = [t * 1000 for t in times]
    return f"{len(ms)}/{len(results)} meta (statuses {statuses}): first {ms[0]:.1f}, median {ms[len(ms) // 2]:.1f}, last {ms[-1]:.1f} ms"


async def bursts(key: str, game_id: str, streams: int, count: int, trace: Trace | None, profile: bool, pause_s: float) -> bool:
    """Prints each burst's figures; True when every call of every burst had its `meta`."""
    from oracle_site.asgi import application

    await asyncio.sleep(3)  # the warm-up (oracle_site/warmup.py) is done in ~1 s
    body = json.dumps({"gameId": game_id, "question": "Combien de cartes a-t-on en main ?"}).encode()
    every_meta = True
    for number in range(count):
        profiler = cProfile.Profile() if profile and number == count - 1 else None
        t0 = time.perf_counter()
        if trace:
            trace.t0 = t0
        if profiler:
            profiler.enable()
        results = await asyncio.gather(*(one_ask(application, key, body, t0) for _ in range(streams)))
        if profiler:
            profiler.disable()
        lines = [f"burst {number + 1} ({'cold' if number == 0 else 'warm'}): {summary(results)}", *(trace.lines() if trace else [])]
        print("\n".join(lines), flush=True)
        every_meta = every_meta and all(status == 200 and t is not None for status, t in results)
        if profiler:
            stats = pstats.Stats(profiler, stream=sys.stdout)
            stats.sort_stats("cumulative").print_stats(40)
            stats.sort_stats("tottime").print_stats(25)
        await asyncio.sleep(pause_s)  # the answers of this burst leave the pools
    return every_meta


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--bursts", type=int, default=4, help="the first is cold, the others warm")
    parser.add_argument("--trace", action="store_true", help="when the token and game lookups were asked for and ran")
    parser.add_argument("--profile", action="store_true", help="cProfile of the event loop during the last burst")
    parser.add_argument("--pause", type=float, default=2.0, help="seconds between bursts")
    args = parser.parse_args(argv)
    os.chdir(BASE_DIR)
    sys.path.insert(0, str(BASE_DIR))
    from scripts.load_test import SpawnedOracle

    oracle = SpawnedOracle(port=0, keep=False)  # a temporary folder; its rate limits: 1000/m
    try:
        key, game_id = prepare(oracle)
        trace = Trace() if args.trace else None
        if trace:
            trace.install()
        every_meta = asyncio.run(bursts(key, game_id, args.streams, args.bursts, trace, args.profile, args.pause))
    finally:
        oracle.stop()  # removes the folder
    return 0 if every_meta else 1  # a refused call (the figures would time nothing) fails the run


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # not waiting for the pools' daemon threads, nor the index owner's
