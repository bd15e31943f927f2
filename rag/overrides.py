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
SEARCH_DEPTH = 40  # how deep among the candidates an extension passage is looked for


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
    text = payload.get("text", "")
    if REPLACES_CUE.search(text):
        return "replaces"
    if MODIFIES_CUE.search(text):
        return "modifies"
    return None


def overrides_first(chunks: list, *, kind_of=lambda c: c.booklet.kind) -> list:
    """`chunks` (RetrievedChunk-like: `.id`, `.payload`, `.booklet.kind`, `.overrides`) with
    each extension passage that the annotations tie to one of the top base passages moved
    right before it, marked with `overrides` = that base chunk. An extension passage already
    ranked above its base passage is marked too."""
    top_base = [c for c in chunks[:PROMOTE_DEPTH] if kind_of(c) == "base"]
    if not top_base:
        return chunks
    base_ids = {c.id: c for c in top_base}
    ordered = list(chunks)
    for candidate in chunks[:SEARCH_DEPTH]:
        if kind_of(candidate) == "base" or change_kind(candidate.payload, kind_of(candidate)) is None:
            continue
        base = _changed_base(candidate.payload, top_base, base_ids)
        if base is None:
            continue
        candidate.overrides = base
        if ordered.index(candidate) > ordered.index(base):
            ordered.remove(candidate)
            ordered.insert(ordered.index(base), candidate)
    return ordered


def _changed_base(payload: dict, top_base: list, base_ids: dict):
    """The top base passage an extension passage changes: by the annotation's chunk ids, else
    (annotations without ids) by the base page it names."""
    targets = [t for t in base_targets(payload) if t in base_ids]
    if targets:
        return base_ids[targets[0]]
    if payload.get("conflict_base_chunk_id") or not payload.get("conflict_base_page"):
        return None
    page = int(payload["conflict_base_page"])
    return next((c for c in top_base if c.page_start <= page <= max(c.page_start, c.page_end)), None)
