"""How sure an answer is, from more than the best cosine (docs/asking.md, « Confidence »).

Signals of one answer: the best cosine of the first passages, the margin between the first
two passages' fused scores, whether dense and BM25 both found the first passage, the
share of the question's words (or their translations) the leading quote holds, and whether
any passage states what is asked (rag.abstain: below its threshold, « ne tranchent pas »). One function
turns them into a level — used by the answer page, the API and eval.run alike. The
thresholds are calibrated on the dev split of the evaluation sets (eval/calibrate.py): « Les
livrets répondent clairement » only where the first citation was right ≥ 95% of the time.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from rag.abstain import says_unsettled, statement_coverage
from rag.extractive import answer_passages
from rag.quotes import best_quote, key_term_coverage

LEVELS = ("high", "medium", "low")


@dataclass(frozen=True)
class Signals:
    best_cosine: float
    margin: float  # (first − second fused score) / first
    agreement: bool  # the first passage was found by both the dense and the BM25 search
    key_terms: float  # share of the question's words the leading quote holds, 0–1
    search_rank: int = 99  # the first passage's worse rank in the dense and BM25 lists (0: first in both)
    stated: float = 1.0  # the largest share of the key terms one of the first passages holds (rag.abstain)
    rule_match: bool = False  # the first passage states the rule number the question names
    unsettled: bool = False  # the answer opens by saying the booklets do not say (rag.abstain.says_unsettled)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> "Signals | None":
        try:
            return cls(float(data["best_cosine"]), float(data["margin"]), bool(data["agreement"]),
                       float(data["key_terms"]), int(data.get("search_rank", 99)), float(data.get("stated", 1.0)),
                       bool(data.get("rule_match", False)), bool(data.get("unsettled", False)))  # fmt: skip
        except (TypeError, KeyError, ValueError):
            return None


@dataclass(frozen=True)
class Thresholds:
    high_cosine: float
    high_key_terms: float
    high_margin: float
    low_cosine: float
    low_key_terms: float
    high_search_rank: int = 99
    abstain_below: float = 0.0  # « ne tranchent pas » when no passage states the key terms (0: off, ASK_ABSTAIN_BELOW)


# Calibrated on the dev split (eval/calibrate.py; docs/asking.md « Confidence » has the figures).
# A recalibration on the rulebooks and unseen dev questions alone (key terms 0.34, rank 2, no
# margin) was 6 of 6 right there and 6 of 10 on the test rulebooks: these, from the full dev
# split, stay.
THRESHOLDS = Thresholds(
    high_cosine=0.89, high_key_terms=0.67, high_margin=0.3, low_cosine=0.80, low_key_terms=0.0, high_search_rank=0
)


def signals_of(question: str, chunks: list, best_score: float, answer: str = "") -> Signals:
    """The signals of the answer built from `chunks` (retrieval order) for `question`;
    `answer`, its text, when written (a model's that says the booklets do not say is low)."""
    if not chunks:
        return Signals(best_score, 0.0, False, 0.0, stated=0.0, unsettled=says_unsettled(answer))
    first = chunks[0]
    if getattr(first, "rerank_score", None) is not None:
        # reranked: the margin is the fused order's (what the thresholds were calibrated on),
        # not that of the reranker's first two, whose fused scores may be in any order
        fused = sorted((c.fusion_score for c in chunks), reverse=True)
        top, second = fused[0], (fused[1] if len(fused) > 1 else 0.0)
    else:
        top, second = first.fusion_score, (chunks[1].fusion_score if len(chunks) > 1 else 0.0)
    margin = (top - second) / top if top else 0.0
    lead = answer_passages(question, chunks)[0]
    quote = best_quote(question, lead)
    coverage = key_term_coverage(question, lead, quote.text) if quote else 0.0
    agreement = {"dense", "bm25"} <= set(getattr(first, "found_by", ()))
    ranks = getattr(first, "search_ranks", {}) or {}
    search_rank = max(ranks.get("dense", 99), ranks.get("bm25", 99))
    return Signals(round(float(best_score), 4), round(margin, 4), agreement, coverage, search_rank,
                   statement_coverage(question, chunks), bool(first.rule_match), says_unsettled(answer))  # fmt: skip


def level_of(signals: Signals, thresholds: Thresholds = THRESHOLDS) -> str:
    """high | medium | low."""
    if (
        signals.best_cosine < thresholds.low_cosine
        or signals.key_terms <= thresholds.low_key_terms
        or signals.stated < thresholds.abstain_below
        or signals.unsettled
    ):
        return "low"
    if (
        signals.agreement
        and signals.best_cosine >= thresholds.high_cosine
        and signals.key_terms >= thresholds.high_key_terms
        and signals.margin >= thresholds.high_margin
        and signals.search_rank <= thresholds.high_search_rank
    ):
        return "high"
    return "medium"
