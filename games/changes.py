"""What each expansion and FAQ of a game changes in its base rules, from the ingestion's
conflict annotations (ingest/stages/conflicts.py) read as rag.overrides reads them when
answering: the page « Ce que changent les extensions et la FAQ » lists the same changes the
answers lead with."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.overrides import MODIFIES_CUE, REPLACES_CUE, base_targets, change_kind

from .models import Chunk, Extension, Game

MAX_EXCERPT = 300
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Change:
    kind: str  # replaces | modifies | clarifies
    page: int
    section: str
    excerpt: str  # the sentence that says what changes, verbatim
    base_page: int | None
    base_section: str
    summary: str  # the LLM's one-line summary, when ingestion had an LLM


@dataclass(frozen=True)
class BookletChanges:
    booklet: Extension
    changes: list[Change]


def changes_of(game: Game) -> list[BookletChanges]:
    """Each expansion / FAQ of the game with the base rules its passages change, in page order."""
    out = []
    for extension in game.extensions.order_by("name"):
        rows = [c for c in Chunk.objects.filter(extension=extension).order_by("ordinal") if _is_change(c, extension)]
        bases = _base_chunks(rows)
        changes = [_change(row, extension, bases) for row in rows]
        out.append(BookletChanges(extension, changes))
    return out


def _is_change(row: Chunk, extension: Extension) -> bool:
    payload = {**row.payload, "text": row.text}
    return bool(base_targets(payload) or payload.get("conflict_base_page")) and change_kind(payload, extension.kind) is not None


def _base_chunks(rows: list[Chunk]) -> dict[str, Chunk]:
    ids = {target for row in rows for target in base_targets(row.payload)[:1]}
    return {str(c.pk): c for c in Chunk.objects.filter(pk__in=ids)}


def _change(row: Chunk, extension: Extension, bases: dict[str, Chunk]) -> Change:
    payload = {**row.payload, "text": row.text}
    targets = base_targets(payload)
    base = bases.get(targets[0]) if targets else None
    return Change(
        kind=change_kind(payload, extension.kind),
        page=row.page_start,
        section=row.hierarchy_path,
        excerpt=_excerpt(row.text),
        base_page=base.page_start if base else payload.get("conflict_base_page"),
        base_section=base.hierarchy_path if base else "",
        summary=payload.get("conflict_summary", ""),
    )


def _excerpt(text: str) -> str:
    """The sentence that says what changes (« This replaces rule 4.3… »), else the first one."""
    sentences = [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]
    for pattern in (REPLACES_CUE, MODIFIES_CUE):
        for sentence in sentences:
            if pattern.search(sentence):
                return sentence[:MAX_EXCERPT]
    return sentences[0][:MAX_EXCERPT] if sentences else ""
