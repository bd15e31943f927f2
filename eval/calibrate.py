"""Calibrate the confidence thresholds on the DEV split only (docs/asking.md « Confidence »).

    .venv/bin/python -m eval.run --split dev --json var/eval/dev.json
    .venv/bin/python -m eval.calibrate var/eval/dev.json

Reads the per-question rows of `eval.run` (their `signals`, `first_citation_right`) and finds
the thresholds that show « Les livrets répondent clairement » (high) on the most answerable
questions while its first citation stays right at least TARGET_PRECISION of the time, and
the abstention threshold (`rag.abstain.STATED_BELOW`): the highest that makes at most
MAX_FALSE_ABSTENTION of the answerable questions abstain, so the most unanswerable ones do.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from dataclasses import replace

from rag.confidence import THRESHOLDS, Signals, Thresholds, level_of

TARGET_PRECISION = 0.95
MAX_FALSE_ABSTENTION = 0.05
ABSTAIN_GRID = tuple(round(0.05 * i, 2) for i in range(0, 21))
GRID = {
    "high_cosine": (0.82, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.90, 0.91),
    "high_key_terms": (0.0, 0.34, 0.5, 0.67, 0.75, 1.0),
    "high_margin": (0.0, 0.05, 0.1, 0.15, 0.2, 0.3),
    "high_search_rank": (0, 1, 2, 99),
}


def high_figures(rows: list[dict], thresholds: Thresholds) -> tuple[int, float, float]:
    """(shown, coverage, precision) of the high level over the answerable rows."""
    answerable = [r for r in rows if r["answerable"] and r.get("signals")]
    shown = [r for r in answerable if level_of(Signals.from_dict(r["signals"]), thresholds) == "high"]
    right = sum(1 for r in shown if r["first_citation_right"])
    return len(shown), len(shown) / max(len(answerable), 1), right / len(shown) if shown else 0.0


def calibrate(rows: list[dict], target: float = TARGET_PRECISION) -> tuple[Thresholds, tuple]:
    best, best_figures = THRESHOLDS, (0, 0.0, 0.0)
    for values in itertools.product(*GRID.values()):
        candidate = replace(THRESHOLDS, **dict(zip(GRID, values)))
        figures = high_figures(rows, candidate)
        if figures[0] and figures[2] >= target and figures[1] > best_figures[1]:
            best, best_figures = candidate, figures
    return best, best_figures


def abstention_threshold(rows: list[dict], max_false: float = MAX_FALSE_ABSTENTION) -> tuple[float, float, float]:
    """(threshold, share of unanswerable abstaining, share of answerable abstaining): the
    highest `stated` threshold whose answerable share stays ≤ max_false."""
    with_signals = [r for r in rows if r.get("signals")]
    answerable = [r["signals"].get("stated", 1.0) for r in with_signals if r["answerable"]]
    unanswerable = [r["signals"].get("stated", 1.0) for r in with_signals if not r["answerable"]]
    best = (0.0, 0.0, 0.0)
    for below in ABSTAIN_GRID:
        false = sum(1 for v in answerable if v < below) / max(len(answerable), 1)
        hit = sum(1 for v in unanswerable if v < below) / max(len(unanswerable), 1)
        if false <= max_false and (hit, -below) > (best[1], -best[0]):
            best = (below, hit, false)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", help="eval.run --split dev --json output")
    args = parser.parse_args(argv)
    rows = json.load(open(args.report, encoding="utf-8"))["questions"]
    if any(r.get("split") == "test" for r in rows):
        raise SystemExit("refusing to calibrate on test-split rows")
    thresholds, (shown, coverage, precision) = calibrate(rows)
    print(f"current:    {THRESHOLDS}\n  high: {high_figures(rows, THRESHOLDS)}")
    print(f"calibrated: {thresholds}\n  high shown {shown}, coverage {coverage:.3f}, precision {precision:.3f}")
    below, hit, false = abstention_threshold(rows)
    print(f"abstain below stated {below}: unanswerable {hit:.3f} abstain, answerable {false:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
