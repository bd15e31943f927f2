"""Cross-encoder rerank (TEI `/rerank`, bge-reranker-v2-m3) and position-aware blending.

The fused order is trusted most at the top, where exact matches land, so the reranker
weighs 25% on positions 1–3, 40% on 4–10 and 60% beyond (docs/architecture.md,
« question → answer »).
Both scores are min-max normalised over the candidates before blending.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

import httpx

RERANK_TOP_N = 50
MAX_TEXT_CHARS = 2000


class RerankError(RuntimeError):
    pass


class Reranker(Protocol):
    name: str

    def scores(self, query: str, texts: Sequence[str]) -> list[float]: ...


@dataclass
class TeiReranker:
    """TEI serving a cross-encoder: POST /rerank {query, texts} → [{index, score}] (any order)."""

    url: str
    api_key: str = ""
    timeout: float = 10.0
    batch_size: int = 32  # TEI's default --max-client-batch-size

    def __post_init__(self):
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        self._client = httpx.Client(base_url=self.url.rstrip("/"), headers=headers, timeout=self.timeout)
        self.name = f"tei-rerank@{self.url}"

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        result = [0.0] * len(texts)
        for start in range(0, len(texts), self.batch_size):
            batch = [t[:MAX_TEXT_CHARS] for t in texts[start : start + self.batch_size]]
            try:
                response = self._client.post("/rerank", json={"query": query, "texts": batch, "truncate": True})
                response.raise_for_status()
            except httpx.HTTPError as exc:
                raise RerankError(f"rerank failed at {self.url}: {exc}") from exc
            for item in response.json():
                result[start + int(item["index"])] = float(item["score"])
        return result


def position_weights(position: int) -> tuple[float, float]:
    """(fusion weight, rerank weight) for a 1-based position in the fused order."""
    if position <= 3:
        return 0.75, 0.25
    if position <= 10:
        return 0.60, 0.40
    return 0.40, 0.60


def normalise(values: Sequence[float]) -> list[float]:
    if not values:
        return []
    low, high = min(values), max(values)
    if high == low:
        return [1.0 for _ in values]
    return [(v - low) / (high - low) for v in values]


def blend(fusion_scores: Sequence[float], rerank_scores: Sequence[float]) -> list[float]:
    """Blended score of each candidate, given in fused order (best first)."""
    fusion_n = normalise(fusion_scores)
    rerank_n = normalise(rerank_scores)
    blended = []
    for position, (f, r) in enumerate(zip(fusion_n, rerank_n), start=1):
        wf, wr = position_weights(position)
        blended.append(wf * f + wr * r)
    return blended
