"""What the player reads, measured: the first citation of the offline answer (is it on a gold
page?), whether its quotes hold the expected fact, and the confidence level shown — with the
same code as the ask flow (rag.extractive, rag.confidence, questions.confidence).

`calibrate(rows)` finds the confidence thresholds on the dev split: the largest share of
answerable questions labelled « Les livrets répondent clairement » (high) whose first
citation is right at least TARGET_PRECISION of the time.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from rag.confidence import THRESHOLDS, Signals, level_of, signals_of
from rag.extractive import answer_passages, extractive_answer
from rag.quotes import best_quote

TARGET_PRECISION = 0.95
_CITATION = re.compile(r'\[(?P<booklet>[^\[\],]+), p\.(?P<page>\d+) : "(?P<quote>[^"]*)"\]')


def answer_row(question: dict, chunks: list, best_score: float, search_text: str | None = None) -> dict:
    """The first citation, the level and its signals for one question's retrieved chunks."""
    text = search_text or question["question"]
    passages = answer_passages(text, chunks)
    first = passages[0] if passages else None
    quote = best_quote(text, first) if first is not None else None
    signals = signals_of(text, chunks, best_score)
    row = {
        "first_citation": f"{first.booklet.slug} p.{quote.page}" if quote else None,
        "first_right": bool(quote) and any(
            g["booklet"] == first.booklet.slug and g["page"] == quote.page for g in question.get("gold", [])
        ),
        "signals": signals.as_dict(),
    }
    if question.get("expected_fact"):
        answer = extractive_answer(question["question"], chunks, best_score=best_score, min_score=0.0, search_text=text)
        row["fact_found"] = fact_in(question["expected_fact"], answer)
    return row


def fact_in(fact: str, answer: str) -> bool:
    """The expected fact's words all stand in the answer's quotes (case and spaces aside)."""
    quotes = " ".join(m["quote"] for m in _CITATION.finditer(answer)).casefold()
    quotes = " ".join(quotes.split())
    return all(part.casefold().strip() in quotes for part in fact.split("|") if part.strip())


def level_table(rows: list[dict], thresholds=THRESHOLDS) -> dict:
    """Per level: how many answers, the share of all, and the share whose first citation is right."""
    table = {}
    total = len(rows) or 1
    for level in ("high", "medium", "low"):
        chosen = [r for r in rows if level_of(Signals.from_dict(r["signals"]), thresholds) == level]
        right = sum(1 for r in chosen if r["first_right"])
        table[level] = {"n": len(chosen), "coverage": round(len(chosen) / total, 3),
                        "precision": round(right / len(chosen), 3) if chosen else None}  # fmt: skip
    return table


def calibrate(rows: list[dict]):
    """The thresholds with the widest « high » coverage at ≥ TARGET_PRECISION (dev split only)."""
    best, best_cover = THRESHOLDS, -1.0
    grid = itertools.product((0.80, 0.82, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.90), (0.0, 0.34, 0.5, 0.67, 0.8, 1.0),
                             (0.0, 0.02, 0.05, 0.1, 0.2))  # fmt: skip
    for cosine, key_terms, margin in grid:
        candidate = replace(THRESHOLDS, high_cosine=cosine, high_key_terms=key_terms, high_margin=margin)
        high = level_table(rows, candidate)["high"]
        if high["n"] and high["precision"] >= TARGET_PRECISION and high["coverage"] > best_cover:
            best, best_cover = candidate, high["coverage"]
    return best
