"""Step 5: chapter > section > subsection for every chunk.

Without an LLM, headings come from the layout: a short paragraph set in a larger font
than the body, bold and numbered ("4. Combat", "105. Colors"), or a short line in capitals
("LEGISLATIVE SESSION"). Capitals set with wide tracking come out of pdfminer cut into
pieces ("EXEC UT IVE ACT I ON"); they are put back together from the booklet's own words
and the system's word lists (Debian's wamerican and wfrench, `WORD_LISTS`). A table of
contents is not a section (its title would otherwise head every later chunk) and its lines
("Set-up ........ 10") are not headings. With an LLM the
outline of candidate headings is sent once and the model's levels replace ours
(docs/architecture.md, decision 3: the LLM refines, it is never required).
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from .read import Page, Paragraph

CACHE_VERSION = "hierarchy-v1"  # the LLM outline cache, `<version>-<slug>.json`
MAX_LEVEL = 3
MAX_HEADING_CHARS = 90
MAX_CAPS_HEADING_CHARS = 60
NUMBERED_HEADING_RE = re.compile(r"^(\d{1,4}(?:\.\d{1,3})*)\.?\s+\S")
_WORD_RE = re.compile(r"[^\W\d_]{2,}")
UNKNOWN_PIECE_COST = 3  # a piece kept as it is costs more than a known word made of pieces
CONTENTS_TITLE_RE = re.compile(
    r"^\s*(?:table\s+(?:of\s+)?contents?|contents|sommaire|table\s+des\s+mati[eè]res|index)\s*:?\s*$", re.IGNORECASE
)
DOT_LEADER_RE = re.compile(r"(?:\.\s?){4,}|…{2,}|\.{2,}\s*\d+\s*$")

log = logging.getLogger(__name__)


def body_font_size(pages: Iterable[Page]) -> float:
    sizes: Counter = Counter()
    for page in pages:
        for paragraph in page.paragraphs:
            sizes[paragraph.font_size] += len(paragraph.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _in_capitals(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 4 and text.isupper() and len(text) <= MAX_CAPS_HEADING_CHARS


def _looks_like_heading(paragraph: Paragraph, body: float) -> bool:
    text = paragraph.text
    if len(text) > MAX_HEADING_CHARS or text.endswith((".", ",", ";", ":")) or not any(c.isalpha() for c in text):
        return False
    if CONTENTS_TITLE_RE.match(text) or DOT_LEADER_RE.search(text):
        return False
    larger = body and paragraph.font_size >= body * 1.15
    return bool(larger or (paragraph.bold and NUMBERED_HEADING_RE.match(text)) or _in_capitals(text))


def booklet_words(pages: Iterable[Page]) -> set[str]:
    """The lower-cased words of the booklet's running text (not of its capitals lines)."""
    words: set[str] = set()
    for page in pages:
        for paragraph in page.paragraphs:
            if not paragraph.text.isupper():
                words.update(w.lower() for w in _WORD_RE.findall(paragraph.text))
    return words


@lru_cache(maxsize=4)
def system_words(paths: tuple[str, ...]) -> frozenset[str]:
    """Lower-cased words of two letters or more from word-list files (one word per line)."""
    words: set[str] = set()
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            log.info("word list %s not found: tracked capitals are rejoined from the booklet's words", path)
            continue
        words.update(w.lower() for w in lines if len(w) >= 2 and w.isalpha())
    return frozenset(words)


def word_lists() -> frozenset[str]:
    from django.conf import settings

    return system_words(tuple(p for p in settings.WORD_LISTS.split(":") if p))


ONE_LETTER_WORDS = frozenset("a i à y".split())


def respace_capitals(text: str, words: set[str], running: set[str] | None = None) -> str:
    """Join the pieces of a tracked capitals line back into known words.

    Only adjacent pieces are joined, and only into a known word ("PR E SIDE NTIAL P O WE R S"
    → "PRESIDENTIAL POWERS"); a piece that forms no known word stays as it is. A line whose
    pieces are all words of the booklet's running text (`running`) already ("A NEW PARTY",
    not "ANEW PARTY") is left alone.
    """
    pieces = text.split()
    if len(pieces) < 2:
        return text
    as_written = running if running is not None else words
    if all(p.lower() in as_written or p.lower() in ONE_LETTER_WORDS for p in pieces):
        return text
    # best[i] = (cost, words) for pieces[:i]
    best: list[tuple[float, list[str]]] = [(0, [])] + [(float("inf"), [])] * len(pieces)
    for end in range(1, len(pieces) + 1):
        for start in range(end):
            joined = "".join(pieces[start:end])
            if joined.isalpha() and joined.lower() in words:
                cost = 1
            elif end - start == 1:
                cost = UNKNOWN_PIECE_COST
            else:
                continue
            if best[start][0] + cost < best[end][0]:
                best[end] = (best[start][0] + cost, best[start][1] + [joined])
    return " ".join(best[-1][1])


def mark_headings(pages: list[Page]) -> int:
    """Set `heading_level` (1 = chapter) on heading paragraphs; returns how many."""
    body = body_font_size(pages)
    running = booklet_words(pages)
    words = running | word_lists()
    for paragraph in (p for page in pages for p in page.paragraphs):
        if _in_capitals(paragraph.text):
            paragraph.text = respace_capitals(paragraph.text, words, running)
    candidates = [p for page in pages for p in page.paragraphs if _looks_like_heading(p, body)]
    levels = size_levels({p.font_size for p in candidates if p.font_size >= body * 1.15})
    for paragraph in candidates:
        # bold or capitals at body size: one level below the smallest larger heading
        level = levels.get(paragraph.font_size, max(levels.values(), default=0) + 1)
        paragraph.heading_level = min(level, MAX_LEVEL)
    _promote_top_levels(candidates)
    return len(candidates)


SAME_LEVEL_RATIO = 0.92  # 17.9 pt and 19 pt are one level set by two renderings, not two levels


def size_levels(sizes: set[float]) -> dict[float, int]:
    """Heading font size → level (1 = largest); sizes within SAME_LEVEL_RATIO of the largest
    size of a level share that level."""
    levels: dict[float, int] = {}
    level, top = 0, None
    for size in sorted(sizes, reverse=True):
        if top is None or size < top * SAME_LEVEL_RATIO:
            level, top = level + 1, size
        levels[size] = level
    return levels


def _promote_top_levels(candidates: list[Paragraph]) -> None:
    """If nothing reached level 1 (e.g. only bold headings), shift levels up."""
    if candidates:
        top = min(p.heading_level for p in candidates)
        for paragraph in candidates:
            paragraph.heading_level -= top - 1


class Outline:
    """The current chapter > section > subsection while walking the document."""

    def __init__(self):
        self.stack: list[str] = []

    def enter(self, paragraph: Paragraph) -> None:
        level = paragraph.heading_level
        self.stack = self.stack[: level - 1] + [paragraph.text.strip()]

    @property
    def path(self) -> str:
        return " > ".join(self.stack)

    @property
    def level(self) -> int:
        return len(self.stack)


# --- LLM refinement --------------------------------------------------------------------

HIERARCHY_SYSTEM = (
    "Tu analyses la structure d'un livret de règles de jeu de société. On te donne la liste "
    "numérotée des titres candidats (avec leur taille de police). Réponds uniquement par un "
    'tableau JSON d\'objets {"i": numéro, "level": 0|1|2|3} où 1 = chapitre, 2 = section, '
    "3 = sous-section et 0 = pas un titre."
)


def outline_prompt(candidates: list[Paragraph]) -> str:
    lines = [f"{i}. [{p.font_size:g}pt p.{p.page}] {p.text[:MAX_HEADING_CHARS]}" for i, p in enumerate(candidates)]
    return "Titres candidats :\n" + "\n".join(lines)


def apply_llm_levels(candidates: list[Paragraph], answer: str) -> int:
    """Apply the model's levels; a malformed answer leaves the layout levels in place."""
    match = re.search(r"\[.*\]", answer, re.S)
    if not match:
        return 0
    try:
        items = json.loads(match.group(0))
    except ValueError:
        return 0
    changed = 0
    for item in items:
        try:
            index, level = int(item["i"]), int(item["level"])
        except (KeyError, TypeError, ValueError):
            continue
        if 0 <= index < len(candidates) and 0 <= level <= MAX_LEVEL:
            candidates[index].heading_level = level
            changed += 1
    return changed


def refine_with_llm(pages: list[Page], llm, timeout: float = 300, cache=None) -> int:
    """Ask the LLM to confirm or correct the layout headings (one call for the document).

    Quota errors propagate (the job pauses); other LLM errors keep the layout levels.
    With a `cache` (JsonCache) the answer is kept, so a job resumed after a quota pause
    does not ask again (and gets the same paths, which key the context cache).
    """
    from rag.llm.base import ClaudeQuotaError, LLMError

    from .cache import text_key

    candidates = [p for page in pages for p in page.paragraphs if p.heading_level or _short_line(p)]
    if not candidates:
        return 0
    prompt = outline_prompt(candidates[:800])
    key = text_key(HIERARCHY_SYSTEM, prompt)
    answer = cache.get(key) if cache is not None else None
    if answer is None:
        try:
            answer = llm.complete(HIERARCHY_SYSTEM, prompt, model="sonnet", timeout=timeout)
        except ClaudeQuotaError:
            raise
        except LLMError:
            return 0
        if cache is not None:
            cache.put(key, answer)
            cache.flush()
    return apply_llm_levels(candidates[:800], answer)


def _short_line(paragraph: Paragraph) -> bool:
    return len(paragraph.text) <= 60 and not paragraph.text.endswith(".")


def assign_paths(pages: list[Page], drafts) -> None:
    """Give each chunk the outline position of its first own paragraph."""
    positions: dict[int, tuple[str, int]] = {}
    outline = Outline()
    for paragraph in (p for page in pages for p in page.paragraphs):
        if paragraph.heading_level:
            outline.enter(paragraph)
        positions[id(paragraph)] = (outline.path, outline.level)
    for draft in drafts:
        anchor = draft.anchor
        draft.hierarchy_path, draft.hierarchy_level = positions.get(id(anchor), ("", 0))
