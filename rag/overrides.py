"""Which extension or FAQ passages change the base rules, and putting them first.

Ingestion annotates each extension chunk with the base chunks it may change
(`ingest/stages/conflicts.py`: `conflict_candidates` by similarity, and with an LLM a
`conflict_type`). Offline there is no type, so the passage's own words decide: « This
replaces rule 4.3 », "instead of", « au lieu de »… An extension passage that changes a base
passage retrieved for the question goes right before it (docs/architecture.md, decision 7):
the player reads the rule that applies with the expansion, then the one it changes.
"""

from __future__ import annotations

import re

OVERRIDING = ("replaces", "modifies")
CLARIFYING = "clarifies"
# The words an expansion or FAQ uses when it changes a rule (English and French).
REPLACES_CUE = re.compile(
    r"\b(replaces?|supersedes?|no longer|remplacen?t?|ne \w+ plus|n'\w+ plus)\b", re.IGNORECASE
)
MODIFIES_CUE = re.compile(
    r"\b(instead( of)?|rather than|except|also|now|may (also|now)|au lieu d[e']|à la place|désormais|"
    r"sauf|aussi|modifie|changes?)\b",
    re.IGNORECASE,
)
PROMOTE_DEPTH = 5  # the base passages whose changes are looked for: the top five
SEARCH_DEPTH = 40
# Only the base passage the annotation ranks first counts: the later candidates are pages that
# touch everything (a round summary), measured on the demo where they tied the FAQ to any rule.
TARGETS_KEPT = 1
NAMED_BY_SIMILARITY_DEPTH = 3  # a base passage tied by similarity alone must be among the first three  # how deep among the candidates an extension passage is looked for


def base_targets(payload: dict) -> list[str]:
    """The base chunks an extension chunk may change, most likely first."""
    ids = [payload.get("conflict_base_chunk_id")]
    ids += [c.get("base_chunk_id") for c in payload.get("conflict_candidates") or []]
    seen: list[str] = []
    for chunk_id in ids:
        if chunk_id and str(chunk_id) not in seen:
            seen.append(str(chunk_id))
    return seen


def change_kind(payload: dict, booklet_kind: str) -> str | None:
    """replaces | modifies | clarifies | None: how this passage changes the base rules.

    The LLM's classification when ingestion had one; else a FAQ answer clarifies, and an
    expansion passage that says so in its words replaces or modifies."""
    kind = payload.get("conflict_type")
    if kind in OVERRIDING:
        return kind
    if kind == "extends":
        return None
    if booklet_kind == "base":
        return None
    if booklet_kind == "faq":
        return CLARIFYING
    text = _words_of(payload)
    if REPLACES_CUE.search(text):
        return "replaces"
    if MODIFIES_CUE.search(text):
        return "modifies"
    return None


def overrides_first(chunks: list, *, kind_of=lambda c: c.booklet.kind) -> list:
    """`chunks` (RetrievedChunk-like: `.id`, `.payload`, `.booklet.kind`, `.overrides`) with
    each extension passage that changes one of the top base passages marked with `overrides`
    = that base chunk and, when it ranked lower, moved right after it: the answer then leads
    with it (rag.extractive.answer_passages). Moved after, not before: measured on the eval
    sets, base questions lost their first place to the expansion (rulebooks R@1 0.815 → 0.723)."""
    top_base = [c for c in chunks[:PROMOTE_DEPTH] if kind_of(c) == "base"]
    if not top_base:
        return chunks
    ordered = list(chunks)
    for candidate in chunks[:SEARCH_DEPTH]:
        if kind_of(candidate) == "base" or change_kind(candidate.payload, kind_of(candidate)) is None:
            continue
        near = [c for c in chunks[:NAMED_BY_SIMILARITY_DEPTH] if kind_of(c) == "base"]
        base = _changed_base(candidate.payload, top_base, near)
        if base is None:
            continue
        candidate.overrides = base
        if ordered.index(candidate) > ordered.index(base) + 1:
            ordered.remove(candidate)
            ordered.insert(ordered.index(base) + 1, candidate)
    return ordered


_NAMED_RULE = re.compile(
    r"\b(?:replaces?|modifies|changes|remplace|modifie)\s+(?:the\s+|la\s+)?(?:rule|règle)\s+(\d+(?:\.\d+)*)", re.IGNORECASE
)


def named_rules(text: str) -> list[str]:
    """The base rules a passage says it changes: « This replaces rule 4.3 », « modifie la règle 5.6 »."""
    return list(dict.fromkeys(m.group(1) for m in _NAMED_RULE.finditer(text)))


def _words_of(payload: dict) -> str:
    """The passage and its section path: the second chunk of a section « 3. Drift (replaces
    rule 4.3 of the base game) » says what it replaces only in its heading."""
    return f"{payload.get('hierarchy_path', '')}\n{payload.get('text', '')}"


def _states(text: str, number: str) -> bool:
    return re.search(rf"(?m)^\s*{re.escape(number)}\.?(?=\s)", text) is not None


def _changed_base(payload: dict, top_base: list, near: list):
    """The top base passage an extension passage changes: the rule it names when it names one
    (« This replaces rule 4.3 », whatever the languages), else the annotation's first base
    chunk when it is among the first three passages, else (annotations without ids) the base
    page the annotation names."""
    numbers = named_rules(_words_of(payload))
    if numbers:
        return next((c for c in top_base for n in numbers if _states(c.text, n)), None)
    top_base = near
    base_ids = {c.id: c for c in near}
    targets = base_targets(payload)[:TARGETS_KEPT]
    for target in targets:
        if target in base_ids:
            return base_ids[target]
    if targets:
        return None
    if payload.get("conflict_base_chunk_id") or not payload.get("conflict_base_page"):
        return None
    page = int(payload["conflict_base_page"])
    return next((c for c in top_base if c.page_start <= page <= max(c.page_start, c.page_end)), None)
