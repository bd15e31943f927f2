"""Numbered rules: a rule number the question names ("702.2b", « règle 4.1 ») puts the chunk
that states it first, and a part of a numbered rule made only of its examples comes after the
part that states it."""

from __future__ import annotations

import re

from rag.fusion import Fused
from rag.passages import RetrievedChunk
from rag.store import Hit

EXAMPLE_PREFIXES = ("Example", "Exemple")
EXAMPLE_SHARE = 0.6  # a chunk this much made of "Example:" paragraphs illustrates its rule

_RULE_NUMBER_RE = re.compile(r"\b(\d{3}\.\d+[a-z]?)\b", re.IGNORECASE)
_NAMED_RULE_RE = re.compile(
    r"\b(?:r[eè]gles?|rules?|sections?|articles?|§)\s*(?:n[°o]\.?\s*)?(\d+(?:\.\d+)*[a-z]?)\b", re.IGNORECASE
)


def rule_numbers_in(question: str) -> list[str]:
    numbers = [m.group(1) for m in _RULE_NUMBER_RE.finditer(question)]
    numbers += [m.group(1) for m in _NAMED_RULE_RE.finditer(question)]
    seen: list[str] = []
    for number in numbers:
        number = number.lower().rstrip(".")
        if number not in seen:
            seen.append(number)
    return seen


def states_rule(text: str, number: str) -> bool:
    """Does `text` contain the line that states rule `number` ("702.2b …", "4.1. …")?"""
    return re.search(rf"(?m)^\s*{re.escape(number)}\.?(?=\s|$)", text, re.IGNORECASE) is not None


def rule_numbers_first(fused: list[Fused], rule_hits: list[Hit], numbers: list[str]) -> list[Fused]:
    """Chunks stating a rule the question names go first, in the order the rules were named."""
    if not numbers:
        return fused
    by_id = {f.id: f for f in fused}
    for hit in rule_hits:
        by_id.setdefault(hit.id, Fused(hit=hit, score=0.0))
    stating = []
    for number in numbers:
        for entry in sorted(by_id.values(), key=lambda f: f.score, reverse=True):
            if entry not in stating and states_rule(entry.hit.payload.get("text", ""), number):
                stating.append(entry)
    if not stating:
        return fused
    top = (fused[0].score if fused else 0.0) + 1.0
    for offset, entry in enumerate(stating):
        entry.score = top - offset * 0.01
    rest = [f for f in fused if f not in stating]
    return stating + rest


def illustrates(chunk: RetrievedChunk) -> bool:
    """Is the chunk mostly "Example:" paragraphs — the part of a long numbered rule that holds
    its illustrations (« 702.19. Trample » then examples only), not its statements?"""
    paragraphs = [p.strip() for p in chunk.text.split("\n\n") if p.strip()]
    total = sum(len(p) for p in paragraphs)
    examples = sum(len(p) for p in paragraphs if p.startswith(EXAMPLE_PREFIXES))
    return bool(total) and examples / total >= EXAMPLE_SHARE


def statements_before_examples(chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """A part of a numbered rule made of its examples comes after a part of the same rule that
    states it, when both are candidates: the player is quoted the rule, then may read the
    illustration (the Comprehensive Rules' 702.19 is cut into parts; its examples-only part
    led « my trampler is blocked by a 1/1 » before 702.19b)."""
    out = list(chunks)
    for chunk in chunks:
        rule = chunk.rule
        if not rule or not illustrates(chunk):
            continue
        at = out.index(chunk)
        statement = next((c for c in out[at + 1:] if c.rule == rule and c.booklet == chunk.booklet
                          and not illustrates(c)), None)
        if statement is not None:
            out.remove(statement)
            out.insert(at, statement)
    return out
