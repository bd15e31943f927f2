"""BGG Rules-forum sync of one game on the embedded default: 3 pages of 50 threads, each
thread ~2,000 characters, served by the local replay server (tests/games/bgg_replay.py).

Prints the time spent on our side (parse, embed, write) with no pacing, the time a real
sync adds by pacing (calls × BGG_MIN_INTERVAL_S), and the cost of a second sync with no
new posts (no thread call, nothing embedded).
Run: .venv/bin/python -m scripts.bench_bgg [--threads 150]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape

ARTICLE = (
    "When an opponent's mech moves into my territory, do I have to fight immediately or can I "
    "finish my move first? The rulebook says combat happens at the end of the move action, but "
    "the FAQ mentions a special case for the Nordic river walk ability and for workers. "
)


def forum_page(page: int, per_page: int, total: int) -> str:
    first = (page - 1) * per_page
    rows = "".join(
        f'<thread id="{9_000_000 + i}" subject="Question {i} about combat" author="u{i}" numarticles="5" '
        f'postdate="Mon, 06 May 2024 09:12:57 +0000" lastpostdate="Wed, 08 May 2024 12:00:01 +0000"/>'
        for i in range(first, min(first + per_page, total))
    )
    return f'<?xml version="1.0" encoding="utf-8"?><forum id="1565739" title="Rules"><threads>{rows}</threads></forum>'


def thread_xml(thread_id: int) -> str:
    articles = "".join(
        f'<article id="{thread_id * 10 + n}" username="player{n}" postdate="2024-05-05T15:01:00-05:00">'
        f"<subject>Re</subject><body>{escape(ARTICLE * 2)}</body></article>"
        for n in range(5)
    )
    return f'<?xml version="1.0" encoding="utf-8"?><thread id="{thread_id}"><subject>Question</subject><articles>{articles}</articles></thread>'


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=150)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-bgg-"))
    os.environ.update(DEBUG="True", ORACLE_VAR_DIR=str(work), QDRANT_PATH=str(work / "qdrant"))
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "oracle_site.settings")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from games import bgg_sync
    from games.bgg_client import BggClient
    from games.models import Game
    from runtime import components
    from tests.games.bgg_replay import FakeBgg, serve

    call_command("migrate", verbosity=0)
    fake = FakeBgg()
    pages = (args.threads + 49) // 50
    fake.overrides["forum.xml"] = forum_page(1, 50, args.threads)
    for page in range(2, pages + 1):
        fake.overrides[f"forum-page{page}.xml"] = forum_page(page, 50, args.threads)
    for i in range(args.threads):
        fake.overrides[f"thread-{9_000_000 + i}.xml"] = thread_xml(9_000_000 + i)
    base_url, stop = serve(fake)
    game = Game.objects.create(name="Scythe", slug="scythe-bench", bgg_id=169786)
    client = BggClient(token=fake.token, base_url=base_url, min_interval=0)
    components.embedder().embed_query("warm-up")
    try:
        start = time.perf_counter()
        first = bgg_sync.sync_forum(game, client, max_pages=3)
        first_s = time.perf_counter() - start
        calls = len(fake.requests)
        start = time.perf_counter()
        second = bgg_sync.sync_forum(game, client, max_pages=3)
        second_s = time.perf_counter() - start
    finally:
        client.close()
        stop()
    chunks = bgg_sync.forum_chunks(game)
    avg_chars = sum(len(c.text) for c in chunks) / max(1, chunks.count())
    print(f"threads stored: {first.created} (avg {avg_chars:.0f} chars), BGG calls: {calls}")
    print(f"first sync, our side: {first_s:.1f} s ({first_s / max(1, first.created) * 1000:.0f} ms/thread)")
    print(f"pacing a real sync adds: {calls * settings.BGG_MIN_INTERVAL_S:.0f} s ({settings.BGG_MIN_INTERVAL_S:g} s × {calls} calls)")
    print(f"second sync, no new post: {second_s:.2f} s, {second.unchanged} unchanged, {len(fake.requests) - calls} calls")


if __name__ == "__main__":
    main()
