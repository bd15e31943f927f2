"""Two `eval.run --json` reports of the same questions, compared question by question.

    .venv/bin/python -m eval.compare var/before.json var/after.json            # every measure
    .venv/bin/python -m eval.compare before.json after.json --measure r1 --list  # which questions moved

A change to retrieval or to the answer moves some questions up and others down; the totals
hide how few moved. Per set and measure this prints the questions both reports answered
(paired), how many the change won and lost, and the two-sided sign test of those moves: the
chance of a split at least that uneven if each move were a coin toss. Four sessions of issue
15 kept finding "gains" of one or two questions on 70–80 that the test split did not confirm;
a p-value above 0.05 says the same before the test split is read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from math import comb
from pathlib import Path

# measure name → whether a row counts as a success (None: the row does not have it)
MEASURES = {
    "r1": lambda r: None if not r.get("answerable", True) else r.get("rank") == 1,
    "r5": lambda r: None if not r.get("answerable", True) else (r.get("rank") or 99) <= 5,
    "first_citation": lambda r: None if not r.get("answerable", True) else bool(r.get("first_citation_right")),
    "fact": lambda r: r.get("fact_found"),
    "lead_fact": lambda r: r.get("fact_in_lead"),  # the expected fact inside the first quote
    # « ne le disent pas » where the booklets do not say it, an answer where they do
    "abstention": lambda r: None if "abstained" not in r else bool(r["abstained"]) != r.get("answerable", True),
    "rule_r1": lambda r: r.get("rule_rank") == 1 if r.get("has_rule") else None,
}


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact binomial test of `wins` against `losses` at p = 0.5 (ties dropped)."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired(before: list[dict], after: list[dict], measure: str) -> dict[str, dict]:
    """Per set (and "every set"): paired count, wins, losses, the ids that moved, sign test."""
    success = MEASURES[measure]
    after_by_id = {row["id"]: row for row in after}
    groups: dict[str, dict] = defaultdict(lambda: {"n": 0, "won": [], "lost": []})
    for row in before:
        other = after_by_id.get(row["id"])
        if other is None:
            continue
        was, now = success(row), success(other)
        if was is None or now is None:
            continue
        for name in (row["set"], "every set"):
            group = groups[name]
            group["n"] += 1
            if now and not was:
                group["won"].append(row["id"])
            elif was and not now:
                group["lost"].append(row["id"])
    for group in groups.values():
        group["p"] = sign_test(len(group["won"]), len(group["lost"]))
    return dict(sorted(groups.items(), key=lambda item: (item[0] == "every set", item[0])))


def load(path: str) -> list[dict]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{path}: not an eval.run --json report ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise SystemExit(f"{path}: not an eval.run --json report (no \"questions\" list)")
    return data["questions"]


def table(before: list[dict], after: list[dict], measures: list[str], show_ids: bool) -> str:
    lines = ["| measure | set | paired | won | lost | net | sign test p |", "|---|---|---|---|---|---|---|"]
    moved = []
    for measure in measures:
        for name, group in paired(before, after, measure).items():
            won, lost = len(group["won"]), len(group["lost"])
            lines.append(f"| {measure} | {name} | {group['n']} | {won} | {lost} | {won - lost:+d} | {group['p']:.3f} |")
            if show_ids and name != "every set" and (won or lost):
                moved.append(f"{measure} {name}: won {', '.join(group['won']) or '—'}; lost {', '.join(group['lost']) or '—'}")
    return "\n".join(lines + ([""] + moved if moved else []))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--measure", default="all", help=f"{', '.join(MEASURES)} or all (default)")
    parser.add_argument("--list", action="store_true", help="name the questions each change won and lost")
    args = parser.parse_args(argv)
    measures = list(MEASURES) if args.measure == "all" else [m.strip() for m in args.measure.split(",")]
    unknown = [m for m in measures if m not in MEASURES]
    if unknown:
        parser.error(f"unknown measure {', '.join(unknown)}: choose among {', '.join(MEASURES)}")
    print(table(load(args.before), load(args.after), measures, args.list))
    return 0


if __name__ == "__main__":
    sys.exit(main())
