"""What each expansion and FAQ of a game changes in its base rules, from the ingestion's
conflict annotations (ingest/stages/conflicts.py) read as rag.overrides reads them when
answering: the page « Ce que changent les extensions et la FAQ » lists the same changes the
answers lead with. Each change is attached to the rule it changes: the rule it names by
number, else the annotation's first base passage that is not a summary page."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.overrides import EXPLICIT_CHANGE, MODIFIES_CUE, REPLACES_CUE, base_targets, change_kind, changed_rule, named_rules
from rag.payload import ChunkPayload

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
    base_rows = list(Chunk.objects.of_booklet(game.base_booklet).order_by("ordinal").only("id", "text", "page_start", "hierarchy_path"))
    for extension in game.extensions.order_by("name"):
        rows = [c for c in Chunk.objects.filter(extension=extension).order_by("ordinal") if _is_change(c, extension)]
        changes = [_change(row, extension, base_rows) for row in rows]
        out.append(BookletChanges(extension, changes))
    return out


def _typed(row: Chunk) -> ChunkPayload:
    return ChunkPayload.from_dict({**row.payload, "text": row.text, "hierarchy_path": row.hierarchy_path})


def _is_change(row: Chunk, extension: Extension) -> bool:
    payload = _typed(row)
    base_page = payload.conflict.base_page if payload.conflict else None
    attached = base_targets(payload) or base_page or named_rules(f"{row.hierarchy_path}\n{row.text}")
    return bool(attached) and change_kind(payload, extension.kind) is not None


def _change(row: Chunk, extension: Extension, base_rows: list[Chunk]) -> Change:
    payload = _typed(row)
    conflict = payload.conflict
    base = changed_rule(payload, base_rows, id_of=lambda r: str(r.pk))
    page_only = None if base_targets(payload) or conflict is None else conflict.base_page
    return Change(
        kind=change_kind(payload, extension.kind),
        page=row.page_start,
        section=row.hierarchy_path,
        excerpt=_excerpt(row.text),
        base_page=base.page_start if base else page_only,
        base_section=base.hierarchy_path if base else "",
        summary=conflict.summary if conflict else "",
    )


def _excerpt(text: str) -> str:
    """The sentence that says what changes (« This replaces rule 4.3… »), else the first one."""
    sentences = [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]
    for pattern in (EXPLICIT_CHANGE, REPLACES_CUE, MODIFIES_CUE):
        for sentence in sentences:
            if pattern.search(sentence):
                return sentence[:MAX_EXCERPT]
    return sentences[0][:MAX_EXCERPT] if sentences else ""
