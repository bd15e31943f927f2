"""A chunk's payload, typed: what ingestion writes on a chunk row (ingest/stages/index.py),
what the index sync adds from the row (games.indexing.chunk_payload) and what retrieval reads
back from a search hit (`RetrievedChunk.content`).

The stored keys are those of the plain dict written before this class existed, so existing
rows and indexes read the same: `ChunkPayload.from_dict(stored).to_dict() == stored`. A key
this class does not name (a forum thread's `bgg_*`, a card's `tag`, `card_name`…) is kept in
`other`. A field left None is absent from the dict (as an absent key was).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class ChunkConflict:
    """An extension chunk's change to a base rule (ingest/stages/conflicts.py): the base
    chunks it resembles, and what the LLM said of the best one (`type` None: no change)."""

    candidates: list = field(default_factory=list, hash=False)  # [{"base_chunk_id", "similarity", "base_page"}]
    type: str | None = None  # modifies | replaces | adds | None
    base_chunk_id: str | None = None
    base_page: int | None = None
    summary: str = ""

    KEYS = {"conflict_candidates": "candidates", "conflict_type": "type", "conflict_base_chunk_id": "base_chunk_id",
            "conflict_base_page": "base_page", "conflict_summary": "summary"}  # fmt: skip

    def to_dict(self) -> dict:
        return {key: getattr(self, name) for key, name in self.KEYS.items()}

    @classmethod
    def from_dict(cls, payload: dict) -> ChunkConflict | None:
        if not any(key in payload for key in cls.KEYS):
            return None
        return cls(**{name: payload[key] for key, name in cls.KEYS.items() if key in payload})


@dataclass(frozen=True)
class ChunkPayload:
    # the booklet's, written at ingestion
    game_name: str | None = None
    game_slug: str | None = None
    booklet_name: str | None = None
    booklet_slug: str | None = None
    booklet_kind: str | None = None
    language: str | None = None
    # the chunker's (numbered rules, page furniture)
    chunker: str | None = None  # "rules" for a numbered-rules document
    rule: str | None = None  # the rule number the chunk belongs to ("702.19")
    rule_keywords: dict | None = field(default=None, hash=False)  # keyword → rule number the document defines here
    page_furniture: list | None = field(default=None, hash=False)  # running lines of the pages it spans
    conflict: ChunkConflict | None = None  # an extension chunk's change to a base rule
    # the row's, added when the chunk is indexed
    chunk_id: str | None = None
    game_id: str | None = None
    extension_id: str | None = None
    collection: str | None = None
    text: str | None = None
    contextual_text: str | None = None
    page_start: int | None = None
    page_end: int | None = None
    page_offsets: list | None = field(default=None, hash=False)
    hierarchy_path: str | None = None
    hierarchy_level: int | None = None
    is_forum_chunk: bool | None = None
    is_extension: bool | None = None
    ordinal: int | None = None
    other: dict = field(default_factory=dict, hash=False)  # keys not named above, kept as they are

    def to_dict(self) -> dict:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "conflict":
                out.update(value.to_dict() if value is not None else {})
            elif f.name != "other" and value is not None:
                out[f.name] = value
        return {**out, **self.other}

    @classmethod
    def from_dict(cls, payload: dict) -> ChunkPayload:
        named = _NAMED
        return cls(
            **{key: value for key, value in payload.items() if key in named and value is not None},
            conflict=ChunkConflict.from_dict(payload),
            # unknown keys, and a named key stored as null (`extension_id` of a base chunk) as it was
            other={k: v for k, v in payload.items() if (k not in named or v is None) and k not in ChunkConflict.KEYS},
        )


_NAMED = frozenset(f.name for f in fields(ChunkPayload)) - {"conflict", "other"}  # the keys read as fields
