"""Latency of retrieval on the embedded default: question embedding + dense and BM25
searches per booklet + RRF v2 fusion (no HyDE, no rerank), p50/p95 over many questions.

    .venv/bin/python -m scripts.bench_retrieval                # synthetic 2k and 30k chunks, Qdrant Edge
    .venv/bin/python -m scripts.bench_retrieval --sizes 2000 --real var/eval
    .venv/bin/python -m scripts.bench_retrieval --engine local     # qdrant-client local mode instead

Synthetic collections hold real rules text (Magic Comprehensive Rules lines, for realistic
BM25 posting lists) with random unit dense vectors (search cost does not depend on what the
vectors mean). `--real DIR` also measures the games ingested by `eval.run` in DIR.
Prints figures; no pass/fail.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from rag.embeddings import EmbedderConfig, get_embedder  # noqa: E402
from rag.retrieve import BookletRef, retrieve  # noqa: E402
from rag.sparse import document_vector  # noqa: E402
from rag.store import Point, open_store  # noqa: E402

CR_TEXT = Path(os.environ.get("EVAL_CORPUS_DIR", BASE_DIR.parent / "shared" / "eval-corpus")) / "mtg" / "MagicCompRules_20250207.txt"
QUESTIONS = [
    "What happens to a creature dealt damage by a source with deathtouch?",
    "Combien de terrains peut-on jouer par tour ?",
    "Can a creature with flying be blocked?",
    "Que dit la règle 702.19b ?",
    "When does a player lose the game with poison counters?",
    "Qui commence la partie et combien de cartes pioche-t-on ?",
    "How does trample assign combat damage?",
    "Peut-on attaquer avec une créature qui a le mot-clé défenseur ?",
    "What is the maximum hand size at the end of the turn?",
    "Explain how the stack resolves triggered abilities.",
]


def passages(count: int) -> list[str]:
    lines = [line.strip() for line in CR_TEXT.read_text(encoding="utf-8-sig").splitlines() if len(line.strip()) > 40]
    out, i = [], 0
    while len(out) < count:  # chunks of ~3 rule lines, cycling through the text
        out.append(" ".join(lines[(i + k) % len(lines)] for k in range(3)))
        i += 3
    return out


def build_collection(store, name: str, count: int, dim: int, seed: int = 7) -> None:
    rng = np.random.default_rng(seed)
    store.ensure_collection(name, dim)
    texts = passages(count)
    batch = []
    for n, text in enumerate(texts):
        vector = rng.standard_normal(dim).astype(np.float32)
        vector /= np.linalg.norm(vector)
        payload = {"text": text, "page_start": n // 10 + 1, "page_end": n // 10 + 1, "collection": name}
        batch.append(Point(str(uuid.uuid4()), vector, document_vector(text), payload))
    store.upsert(name, batch, batch_size=512)


# The searches of one retrieval run concurrently, as in a web process (RETRIEVE_THREADS=8).
SEARCHES = ThreadPoolExecutor(max_workers=8, thread_name_prefix="bench-retrieve")


def measure(store, embedder, booklets, rounds: int) -> dict:
    timings, parts = [], {"embed": [], "search": [], "fusion": []}
    for question in QUESTIONS[:2]:  # warm-up
        retrieve(question, store=store, embedder=embedder, booklets=booklets, executor=SEARCHES)
    for n in range(rounds):
        question = QUESTIONS[n % len(QUESTIONS)]
        start = time.perf_counter()
        found = retrieve(question, store=store, embedder=embedder, booklets=booklets, executor=SEARCHES)
        timings.append((time.perf_counter() - start) * 1000)
        for key in parts:
            parts[key].append(found.timings_ms.get(key, 0.0))
    return {
        "p50_ms": round(statistics.median(timings), 1),
        "p95_ms": round(float(np.percentile(timings, 95)), 1),
        **{f"{k}_p50_ms": round(statistics.median(v), 1) for k, v in parts.items()},
        **{f"{k}_p95_ms": round(float(np.percentile(v, 95)), 1) for k, v in parts.items()},
    }


def bench_synthetic(sizes: list[int], rounds: int, engine: str) -> None:
    embedder = get_embedder(EmbedderConfig())
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            store = open_store(path=folder, engine=engine)
            start = time.perf_counter()
            # A game of `size` chunks: a base booklet with most of them and an extension.
            base, extension = int(size * 0.8), size - int(size * 0.8)
            build_collection(store, "rules_bench", base, embedder.dim, seed=1)
            build_collection(store, "rules_bench_ext", extension, embedder.dim, seed=2)
            built = time.perf_counter() - start
            # English text (Comprehensive Rules lines): the French questions take the translated BM25 path.
            booklets = [
                BookletRef("rules_bench", "bench", "Bench", language="en"),
                BookletRef("rules_bench_ext", "bench-ext", "Ext", "extension", language="en"),
            ]
            result = measure(store, embedder, booklets, rounds)
            store.close()
        print(f"synthetic {size:>6} chunks ({store.description.split()[0]} store, built in {built:.0f} s): {result}")


def bench_real(var_dir: str, rounds: int) -> None:
    from eval.setup_env import setup

    setup(var_dir)
    from games.indexing import sync_if_changed
    from games.models import Chunk, Game
    from runtime import components
    from questions.booklets import booklets_of

    store, embedder = components.vector_store(), components.embedder()
    sync_if_changed(store)
    for game in Game.objects.prefetch_related("extensions"):
        booklets = booklets_of(game, list(game.extensions.all()))
        count = Chunk.objects.filter(game=game).count()
        print(f"real {game.slug:<22} {count:>6} chunks: {measure(store, embedder, booklets, rounds)}")


def bench_first_event(base_url: str, token: str, game_id: str, rounds: int) -> None:
    """Time from sending POST /api/ask/stream to receiving its first SSE event (`meta`)."""
    import httpx

    firsts, totals = [], []
    for n in range(rounds):
        body = {"gameId": game_id, "question": QUESTIONS[n % len(QUESTIONS)]}
        start = time.perf_counter()
        with httpx.stream("POST", f"{base_url}/api/ask/stream", json=body, timeout=120,
                          headers={"Authorization": f"Bearer {token}"}) as response:
            if response.status_code != 200:  # e.g. 429: start the server with RATE_LIMIT_ASK_USER raised
                response.read()
                raise SystemExit(f"question {n + 1}: HTTP {response.status_code} {response.text[:200]}")
            lines = response.iter_lines()
            for line in lines:
                if line.startswith("data:"):
                    firsts.append((time.perf_counter() - start) * 1000)
                    break
            for line in lines:
                pass
        totals.append((time.perf_counter() - start) * 1000)
    print(f"first SSE event: p50 {statistics.median(firsts):.1f} ms, p95 {np.percentile(firsts, 95):.1f} ms; "
          f"whole answer p50 {statistics.median(totals):.0f} ms ({rounds} questions)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="2000,30000")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--real", help="a var folder filled by eval.run (e.g. var/eval)")
    parser.add_argument("--engine", choices=("edge", "local"), default="edge",
                        help="embedded store engine (default: edge, the embedded default)")
    parser.add_argument("--sse", metavar="BASE_URL", help="time the first SSE event of a running server "
                        "(needs ORACLE_TOKEN and ORACLE_GAME_ID in the environment, and the server started "
                        "with RATE_LIMIT_ASK_USER above --rounds per minute)")
    args = parser.parse_args(argv)
    os.environ["QDRANT_EMBEDDED_ENGINE"] = args.engine
    if args.sse:
        bench_first_event(args.sse, os.environ["ORACLE_TOKEN"], os.environ["ORACLE_GAME_ID"], args.rounds)
        return 0
    if args.real:
        bench_real(args.real, args.rounds)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    bench_synthetic(sizes, args.rounds, args.engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
