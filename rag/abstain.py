"""Do the booklets state what the question asks? When none of the passages retrieved has a
sentence holding the question's key terms (in the booklet's language: the words themselves,
their translations and the game's own terms, as rag.quotes matches them), the answer says so
first — « Les livrets ne le disent pas » — and offers the closest passages as such
(rag.extractive), and the label is « ne tranchent pas » (rag.confidence).

Key terms: the question's content words (rag.sparse.tokenize drops the function words of
both languages) but the booklet's and game's names, which every passage of the game is about.
Each weighs by how rare it is among the passages retrieved: a word in every passage
(« joueur », "card") says little about whether one of them answers, a word in none says the
most. `statement_coverage` is the best share of that weight one sentence holds.
"""

from __future__ import annotations

from rag.quotes import question_groups, sentences
from rag.retrieve import RetrievedChunk
from rag.sparse import tokenize

DEPTH = 8  # the passages an answer may rest on (ASK_TOP_K)
# Below this the booklets are taken not to say it. Calibrated on the dev split
# (eval/calibrate.py; docs/asking.md « Confidence »).
STATED_BELOW = 0.5


def statement_coverage(question: str, chunks: list[RetrievedChunk], depth: int = DEPTH) -> float:
    """0–1: the largest rarity-weighted share of the question's key terms that one sentence
    of the first `depth` rulebook passages holds. 1.0 when the question has no key term."""
    rules = [c for c in chunks if not c.is_forum][:depth]
    if not rules:
        return 0.0
    names = {t for c in rules for t in tokenize(c.booklet.name)}
    per_chunk = []
    for chunk in rules:
        groups = [g for g in question_groups(question, chunk) if not g & names]
        texts = [set(tokenize(s.text)) for s in sentences(chunk)]
        per_chunk.append((groups, set(tokenize(chunk.text)), texts))
    if not any(groups for groups, _t, _s in per_chunk):
        return 1.0
    best = 0.0
    for groups, _text, texts in per_chunk:
        if not groups:
            continue
        weights = [_rarity(group, per_chunk) for group in groups]
        total = sum(weights)
        for terms in texts:
            held = sum(w for group, w in zip(groups, weights) if group & terms)
            best = max(best, held / total if total else 0.0)
    return round(best, 3)


def _rarity(group: frozenset[str], per_chunk: list) -> float:
    """1 for a term no passage holds, down to 0.2 for one every passage holds."""
    holding = sum(1 for _g, text, _s in per_chunk if group & text)
    return 1.0 - 0.8 * holding / len(per_chunk)


def booklets_silent(question: str, chunks: list[RetrievedChunk], below: float = STATED_BELOW) -> bool:
    """True when no passage states what the question asks (see `statement_coverage`)."""
    return statement_coverage(question, chunks) < below
