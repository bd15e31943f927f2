"""Reciprocal rank fusion: RRF v2 for the ranked lists of one question (docs/architecture.md,
« Fusion RRF v2 »), and the classic RRF (1/(k + rank)) for card searches and conflict candidates.

Each list contributes weight/(rank+2) to every point it ranks (rank from 0); lists from the
raw question weigh 2, lists from the HyDE passage 1. A point at the top of a list gets a
bonus (+0.05 at rank 0, +0.02 at ranks 1–2) so an exact match is not averaged away.
Points are de-duplicated by id.

`RAG_FUSION_V2_ENABLED=false` gives plain RRF instead (every list weighs the same,
1/(60 + rank + 1), no bonus): the reference's switch, to measure what v2 brings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from rag.store import Hit

QUESTION_WEIGHT = 2.0
HYDE_WEIGHT = 1.0
CONTEXT_WEIGHT = 2.0  # a follow-up with its previous question (rag.followup): the follow-up's own words count twice
TOP_RANK_BONUS = {0: 0.05, 1: 0.02, 2: 0.02}
RRF_K = 60  # Cormack et al.'s constant, the usual plain RRF

@dataclass
class RankedList:
    name: str  # e.g. "dense:question", "bm25:hyde"
    weight: float
    hits: list[Hit]


@dataclass
class Fused:
    hit: Hit
    score: float
    ranks: dict[str, int] = field(default_factory=dict)  # list name → rank in it
    raw_scores: dict[str, float] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.hit.id


def rrf_contribution(weight: float, rank: int) -> float:
    return weight / (rank + 2) + TOP_RANK_BONUS.get(rank, 0.0)


def plain_rrf_contribution(weight: float, rank: int) -> float:
    return 1.0 / (RRF_K + rank + 1)


def fuse(lists: list[RankedList], v2: bool = True) -> list[Fused]:
    """RRF v2, or plain RRF when the switch is off (the caller passes RAG_FUSION_V2_ENABLED)."""
    return _rrf(lists, rrf_contribution if v2 else plain_rrf_contribution)


def rrf_v2(lists: list[RankedList]) -> list[Fused]:
    """Fuse ranked lists; best first. Ties keep the order points were first seen."""
    return _rrf(lists, rrf_contribution)


def _rrf(lists: list[RankedList], contribution) -> list[Fused]:
    fused: dict[str, Fused] = {}
    for ranked in lists:
        seen_here: set[str] = set()
        for rank, hit in enumerate(ranked.hits):
            if hit.id in seen_here:  # a point twice in one list counts once, at its best rank
                continue
            seen_here.add(hit.id)
            entry = fused.setdefault(hit.id, Fused(hit=hit, score=0.0))
            entry.score += contribution(ranked.weight, rank)
            entry.ranks[ranked.name] = rank
            entry.raw_scores[ranked.name] = hit.score
    return sorted(fused.values(), key=lambda f: f.score, reverse=True)


def merge_by_score(hit_lists: list[list[Hit]], limit: int) -> list[Hit]:
    """One ranking from the same search run on several collections (scores are comparable:
    cosine for dense, BM25 for sparse)."""
    merged = [hit for hits in hit_lists for hit in hits]
    merged.sort(key=lambda h: h.score, reverse=True)
    return merged[:limit]


def rrf(hit_lists: Sequence[Sequence[Hit]], k: int = RRF_K, limit: int | None = None) -> list[Hit]:
    """Classic RRF: each list gives 1/(k + rank + 1) to every point it ranks; best first (ties
    keep the order points were first seen), each hit scored with its fused score."""
    scores: dict[str, float] = {}
    best: dict[str, Hit] = {}
    for hits in hit_lists:
        for rank, hit in enumerate(hits):
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (k + rank + 1)
            best.setdefault(hit.id, hit)
    ranked = sorted(scores, key=scores.get, reverse=True)[:limit]
    return [Hit(id=i, score=scores[i], payload=best[i].payload, collection=best[i].collection) for i in ranked]
