"""What retrieval returns, and what it knows of a booklet: plain values, no ORM
(rag.retrieve finds them; questions, answers and eval read them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from rag.payload import ChunkPayload


@dataclass(frozen=True)
class BookletRef:
    """What retrieval and answering need to know about one booklet (no ORM)."""

    collection: str
    slug: str
    name: str
    kind: str = "base"  # base | extension | advanced_rules | faq
    images_dir: Path | None = None
    language: str = ""  # as the admin gave it: « fr », "en"…; empty when unknown
    id: str = ""  # the booklet's id in links (the game's for the base booklet); empty when none
    # What the booklet's game and document define (rag.rule_routing): keyword → rule number,
    # and the game's French ↔ English terms (rag.terms.GameTerms).
    rule_keywords: dict = field(default_factory=dict, compare=False, hash=False)
    terms: object = field(default=None, compare=False, hash=False)
    # The French <-> English dictionary its searches translate with (rag.lexicon; the caller
    # builds it from BILINGUAL_DICTIONARY_DIR); None: the default folder's.
    lexicon: object = field(default=None, compare=False, hash=False, repr=False)

    @property
    def is_extension(self) -> bool:
        return self.kind != "base"


@dataclass
class RetrievedChunk:
    id: str
    booklet: BookletRef
    payload: dict
    score: float  # final score (fusion, blended with rerank when configured)
    fusion_score: float
    dense_score: float | None = None  # cosine with the raw question, when dense found it
    rerank_score: float | None = None
    rule_match: bool = False
    overrides: "RetrievedChunk | None" = None  # the base passage this one changes (rag.overrides)
    variant_of: "RetrievedChunk | None" = None  # the base passage a variant the question does not name changes
    found_by: tuple[str, ...] = ()  # the kinds of search that found it: "dense", "bm25", "keyword"
    search_ranks: dict = field(default_factory=dict)  # "dense" / "bm25" → its rank (0 = first) for the question

    @cached_property
    def content(self) -> ChunkPayload:
        """The hit's payload, typed (rag.payload); `payload` is the stored dict it was read from."""
        return ChunkPayload.from_dict(self.payload)

    @property
    def text(self) -> str:
        return self.content.text or ""

    @property
    def page_start(self) -> int:
        return int(self.content.page_start or 0)

    @property
    def page_end(self) -> int:
        return int(self.content.page_end or self.page_start)

    @property
    def page_offsets(self) -> list:
        return self.content.page_offsets or []

    @property
    def hierarchy_path(self) -> str:
        return self.content.hierarchy_path or ""

    @property
    def rule(self) -> str | None:
        """The numbered rule it belongs to ("702.19"), for a numbered-rules document."""
        return self.content.rule

    @property
    def is_forum(self) -> bool:
        return bool(self.content.is_forum_chunk)

    @property
    def conflict(self) -> dict | None:
        found = self.content.conflict
        if found is None or not found.type:
            return None
        return {"type": found.type, "base_chunk_id": found.base_chunk_id, "base_page": found.base_page,
                "summary": found.summary or ""}  # fmt: skip

    @property
    def pages(self) -> str:
        if self.page_start and self.page_end and self.page_end != self.page_start:
            return f"{self.page_start}-{self.page_end}"
        return str(self.page_start)


@dataclass
class Retrieval:
    chunks: list[RetrievedChunk]
    timings_ms: dict[str, float] = field(default_factory=dict)
    rule_numbers: list[str] = field(default_factory=list)
    candidates: int = 0
    reranked: bool = False

    @property
    def best_score(self) -> float:
        """Relevance of the best chunk: its cosine with the question (fusion scores are ranks)."""
        scores = [c.dense_score for c in self.chunks[:5] if c.dense_score is not None]
        return round(max(scores), 4) if scores else 0.0
