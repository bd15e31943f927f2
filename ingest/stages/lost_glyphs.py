"""Characters a PDF's font maps to nothing readable, repaired or removed before chunking.

Some fonts map their ligature glyphs (ﬁ, ﬂ…) to U+0000 in their ToUnicode table: pdfminer then
reads « Simpli\\x00er » for « Simplifier » (the PhoneImpact short-game sheet). Left in, the
word is lost to search and quotes, and PostgreSQL refuses to store the text at all (« text
fields cannot contain NUL »): the ingestion failed at its last act, and again at each relaunch.
Each lost glyph is given the ligature that makes a known word (the booklet's own words, then
the system's word lists, hierarchy.word_lists); « fi », the commonest, when none does. Other
control characters carry nothing a reader sees: they go.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from itertools import product

from .read import Page

LOST = "\x00"
LIGATURES = ("fi", "fl", "ff", "ffi", "ffl")  # most frequent first: the fall-back is the first
MAX_LOST_IN_A_WORD = 3  # 5³ spellings to try at most
CONTROL_RE = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]")
WORD_WITH_LOST_RE = re.compile(rf"[^\W_]*{LOST}[^\W_{LOST}]*(?:{LOST}[^\W_{LOST}]*)*")


def repair_pages(pages: list[Page], known_words: Callable[[], Collection[str]]) -> int:
    """Repair every paragraph in place; returns how many lost glyphs were given a ligature.
    `known_words` is called only when a paragraph needs it (most booklets lose nothing)."""
    damaged = [p for page in pages for p in page.paragraphs if LOST in p.text or CONTROL_RE.search(p.text)]
    if not damaged:
        return 0
    lost = sum(p.text.count(LOST) for p in damaged)
    words = known_words()
    for paragraph in damaged:
        paragraph.text = repair_text(paragraph.text, words)
    return lost


def repair_text(text: str, words: Collection[str]) -> str:
    text = WORD_WITH_LOST_RE.sub(lambda match: spelled(match.group(0), words), text)
    return CONTROL_RE.sub("", text.replace(LOST, ""))


def spelled(word: str, words: Collection[str]) -> str:
    """The word with its lost glyphs given the ligatures that make a known word."""
    parts = word.split(LOST)
    if len(parts) - 1 > MAX_LOST_IN_A_WORD:
        return LIGATURES[0].join(parts)
    for choice in product(LIGATURES, repeat=len(parts) - 1):
        candidate = parts[0] + "".join(ligature + part for ligature, part in zip(choice, parts[1:]))
        if candidate.lower() in words:
            return candidate
    return LIGATURES[0].join(parts)
