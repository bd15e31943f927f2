"""Step 4, numbered-rules documents: one chunk per rule (the Comprehensive Rules, FAQ booklets).

A document where most lines start with a rule number ("702.19b …") is cut by rule instead of
by size: a rule ("702.19. Trample") with its sub-rules ("702.19a" …), its "Example:"
paragraphs and its wrapped lines is one chunk; a rule too long for one is cut between
sub-rules into chunks that each start with the rule's heading line again. Each chunk carries
its section path ("7. Additional Rules > 702. Keyword Abilities > 702.19. Trample"), embedded
with it, and in its payload the rule's number and the keywords the document defines there
(the rule's title, a glossary entry's « See rule 702.11, “Hexproof.” »): questions that name
a keyword are routed to its rule (`rag.rule_routing`).

What comes before the first rule (title, contents) and unnumbered sections (a glossary) are
packed by size, whole paragraphs at a time. Numbers that go backwards (the « 1. » and « 2. »
of a glossary entry's senses) are text, not rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .chunk import SEPARATOR, ChunkDraft, Piece, _split_long
from .read import Page, Paragraph

MIN_RULE_SHARE = 0.5  # CR 0.72; ordinary rulebooks measured 0.00–0.29 (docs/ingestion.md)
MIN_RULE_LINES = 40
RULE_MAX_CHARS = 1100  # a rule up to this size stays one chunk…
RULE_TARGET_CHARS = 700  # …a longer one is cut into chunks of about this size
FREE_TARGET_CHARS = 600  # glossary and preamble: as the ordinary chunker
MAX_TITLE_CHARS = 60
MAX_KEYWORD_WORDS = 4
EXAMPLE_PREFIXES = ("Example", "Exemple")
MAX_KEYWORD_SHARE = 0.02  # a keyword in more chunks than this is an everyday word there…
MIN_COMMON_CHUNKS = 10  # …(a short document: more than this many)
MAX_RULE_GAP = 5  # 702.18 → 702.19; a few numbers may be retired
MAX_FIRST_RULE = 1  # a new parent's first rule: 109.1 (FAQs may start at 0)

RULE_LINE_RE = re.compile(r"^(?P<number>\d{1,4}(?:\.\d{1,3})*)(?P<letter>[a-z])?\.?\s+(?P<rest>\S.*)", re.S)
_SEE_RULE_RE = re.compile(r"[Ss]ee rule (\d{1,4}\.\d{1,3}),\s*[“\"]([^”\"]{2,60}?)[.,]?[”\"]")


@dataclass
class RuleUnit:
    """One rule (or one unnumbered stretch of text) and its paragraphs, in order."""

    number: str = ""  # "702.19"; "" for free text
    heading: str = ""  # "702.19. Trample" when the rule line is a title
    path: str = ""
    blocks: list[list[Paragraph]] = field(default_factory=list)  # a sub-rule and what follows it


def rule_share(pages: list[Page]) -> tuple[float, int]:
    paragraphs = [p for page in pages for p in page.paragraphs if p.text.strip()]
    numbered = sum(1 for p in paragraphs if RULE_LINE_RE.match(p.text))
    return (numbered / len(paragraphs) if paragraphs else 0.0), numbered


def is_rules_document(pages: list[Page]) -> bool:
    share, numbered = rule_share(pages)
    return share >= MIN_RULE_SHARE and numbered >= MIN_RULE_LINES


def _parts(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split("."))


def _title(rest: str) -> str:
    """The rest of a rule line when it is a title ("Trample"), else ""."""
    rest = rest.strip()
    if len(rest) > MAX_TITLE_CHARS or rest.endswith((".", ":", ";", ",")) or not rest[:1].isupper():
        return ""
    return rest


class _Walker:
    """Walks the paragraphs and groups them into rule units, keeping the section stack."""

    def __init__(self):
        self.units: list[RuleUnit] = []
        self.sections: list[tuple[str, str]] = []  # [(number, "7. Additional Rules"), …]
        self.last: dict[int, tuple[int, ...]] = {}  # last number seen, by width of its first part
        self.current: RuleUnit | None = None

    def feed(self, paragraph: Paragraph, started: bool) -> None:
        match = RULE_LINE_RE.match(paragraph.text) if started else None
        if match and self._is_rule(match):
            self._rule_line(paragraph, match)
        elif paragraph.heading_level and not match and started:
            self._start(RuleUnit(path=paragraph.text.strip()), paragraph)
        else:
            self._append(paragraph, new_block=False)

    def _is_rule(self, match: re.Match) -> bool:
        """Is this line a rule, or a wrapped line that happens to start with a number
        ("110.2 and 112.2.", "601.2c. (If an activated…") or a glossary's numbered sense?

        A sub-rule belongs to the current rule; a section heading is a title numbered after
        the previous one; a rule follows the previous rule (next number, or the first ones of
        the next parent: 108.5 → 108.6, 109.1 — not 110.2).
        """
        number, rest = match.group("number"), match.group("rest")
        owner = self.current.number if self.current else ""
        if match.group("letter") or (owner and number.startswith(owner + ".")):
            return bool(owner) and (number == owner or number.startswith(owner + "."))
        parts = _parts(number)
        width = len(number.split(".")[0])
        if len(parts) == 1:
            return bool(_title(rest)) and parts > self.last.get(width, ())[:1]
        previous = self.last.get(width, ())
        if len(previous) < len(parts):  # a rule under the heading just read: « 100. » → 100.1
            return parts[: len(previous)] == previous
        if len(previous) > len(parts):
            return parts > previous[: len(parts)]
        if parts[:-1] == previous[:-1]:
            return 0 < parts[-1] - previous[-1] <= MAX_RULE_GAP
        next_parent = parts[:-2] == previous[:-2] and parts[-2] == previous[-2] + 1
        return next_parent and parts[-1] <= MAX_FIRST_RULE

    def _rule_line(self, paragraph: Paragraph, match: re.Match) -> None:
        number, letter, rest = match.group("number"), match.group("letter"), match.group("rest")
        parts = _parts(number)
        if not letter and not (self.current and number.startswith(self.current.number + ".")):
            self.last[len(number.split(".")[0])] = parts
        if len(parts) == 1 and not letter:  # "7. Additional Rules", "702. Keyword Abilities"
            heading = f"{number}. {rest.strip()}"
            self.sections = [(n, h) for n, h in self.sections if number.startswith(n) and n != number]
            self.sections.append((number, heading))
            self.current = None
            return
        owner = self.current.number if self.current else ""
        if letter or (owner and number.startswith(owner + ".")):
            self._append(paragraph, new_block=True)  # a sub-rule of the current rule
            return
        title = _title(rest)
        heading = f"{number}. {title}" if title else ""
        path = " > ".join([h for _, h in self.sections] + [heading or number])
        self._start(RuleUnit(number=number, heading=heading, path=path), paragraph)

    def _start(self, unit: RuleUnit, paragraph: Paragraph) -> None:
        unit.blocks.append([paragraph])
        self.units.append(unit)
        self.current = unit

    def _append(self, paragraph: Paragraph, new_block: bool) -> None:
        if self.current is None:
            path = " > ".join(h for _, h in self.sections)
            self._start(RuleUnit(path=path), paragraph)
        elif new_block or not self.current.number:
            self.current.blocks.append([paragraph])  # free text: every paragraph is a block
        else:
            self.current.blocks[-1].append(paragraph)


def rule_units(pages: list[Page]) -> list[RuleUnit]:
    """The document as rule units; the preamble (title, contents) as free units."""
    paragraphs = [p for page in pages for p in page.paragraphs if p.text.strip()]
    start = _first_rule_index(paragraphs)
    walker = _Walker()
    for index, paragraph in enumerate(paragraphs):
        walker.feed(paragraph, started=index >= start)
    return walker.units


def _first_rule_index(paragraphs: list[Paragraph]) -> int:
    """Where the rules start: the first numbered rule with a body ("100.1."), less the section
    headings right above it ("1. Game Concepts", "100. General"). A table of contents before
    it lists the same numbers and stays preamble."""
    for index, paragraph in enumerate(paragraphs):
        match = RULE_LINE_RE.match(paragraph.text)
        if match and (len(_parts(match.group("number"))) > 1 or match.group("letter")) and not _title(match.group("rest")):
            while index > 0 and _is_section_line(paragraphs[index - 1]):
                index -= 1
            return index
    return len(paragraphs)


def _is_section_line(paragraph: Paragraph) -> bool:
    match = RULE_LINE_RE.match(paragraph.text)
    return bool(match and (len(_parts(match.group("number"))) == 1 or _title(match.group("rest"))))


# --- units → chunks ------------------------------------------------------------------------


def chunk_rules(pages: list[Page]) -> list[ChunkDraft]:
    """The chunks of a numbered-rules document, each with its path and payload set."""
    drafts: list[ChunkDraft] = []
    for unit in rule_units(pages):
        target = RULE_TARGET_CHARS if unit.number else FREE_TARGET_CHARS
        limit = RULE_MAX_CHARS if unit.number else FREE_TARGET_CHARS
        for pieces in _pack(unit, target, limit):
            draft = ChunkDraft(pieces=pieces, hierarchy_path=unit.path, hierarchy_level=unit.path.count(" > ") + 1)
            _mark(draft, unit)
            drafts.append(draft)
    drafts = [d for d in drafts if d.anchor is not None]
    _drop_common_keywords(drafts)
    return drafts


def _drop_common_keywords(drafts: list[ChunkDraft]) -> None:
    """A keyword that many chunks use is an everyday word of the document ("Cast", "Play",
    "Counter" are keyword actions of the Comprehensive Rules): naming it says nothing about
    which rule a question is about."""
    texts = [d.text.lower() for d in drafts]
    keywords = {k for d in drafts for k in d.rule_keywords}
    common = set()
    for keyword in keywords:
        pattern = re.compile(rf"\b{re.escape(keyword)}\b")
        if sum(1 for text in texts if pattern.search(text)) > max(MIN_COMMON_CHUNKS, MAX_KEYWORD_SHARE * len(texts)):
            common.add(keyword)
    for draft in drafts:
        draft.rule_keywords = {k: n for k, n in draft.rule_keywords.items() if k not in common}


def _pack(unit: RuleUnit, target: int, limit: int) -> list[list[Piece]]:
    """Blocks packed into chunks: whole when the unit fits `limit`, else about `target` each;
    a continuation chunk starts with the rule's heading line again."""
    blocks = [[piece for p in block for piece in _split_long(p)] for block in unit.blocks]
    if _size([p for b in blocks for p in b]) <= limit:
        return [[p for b in blocks for p in b]]
    # a sub-rule longer than a chunk (a list of subtypes, a rule with many examples) is cut
    # between its paragraphs
    blocks = _atoms(blocks, target)
    chunks: list[list[Piece]] = []
    current: list[Piece] = []
    for block in blocks:
        if current and _size(current) + _size(block) > target and _has_own_text(current, unit):
            chunks.append(current)
            current = _repeated_heading(unit, block)
        current = current + block
    if current:
        chunks.append(current)
    return chunks


def _atoms(blocks: list[list[Piece]], target: int) -> list[list[Piece]]:
    """The units a long rule is cut between: its sub-rules, or the paragraphs of a sub-rule
    longer than a chunk, an "Example:" staying with the paragraph before it when both fit."""
    atoms: list[list[Piece]] = []
    for block in blocks:
        if _size(block) <= target:
            atoms.append(block)
            continue
        parts: list[list[Piece]] = []
        for piece in block:
            if parts and piece.text.startswith(EXAMPLE_PREFIXES) and _size(parts[-1] + [piece]) <= RULE_MAX_CHARS:
                parts[-1] = parts[-1] + [piece]
            else:
                parts.append([piece])
        atoms += parts
    return atoms


def _size(pieces: list[Piece]) -> int:
    return sum(len(p.text) for p in pieces) + len(SEPARATOR) * max(0, len(pieces) - 1)


def _has_own_text(pieces: list[Piece], unit: RuleUnit) -> bool:
    """A chunk holding only the rule's heading is not cut off from its first sub-rule."""
    return any(p.paragraph is not None and p.text.strip() != unit.heading for p in pieces)


def _repeated_heading(unit: RuleUnit, block: list[Piece]) -> list[Piece]:
    if not unit.heading:
        return []
    return [Piece(unit.heading, block[0].page, None)]  # on the page where this chunk starts


def _mark(draft: ChunkDraft, unit: RuleUnit) -> None:
    """The rule the chunk belongs to, and the keywords the document defines in it."""
    draft.chunker = "rules"
    keywords: dict[str, str] = {}
    if unit.number:
        draft.rule = unit.number
        title = unit.heading.partition(" ")[2]
        if title and len(title.split()) <= MAX_KEYWORD_WORDS:
            keywords[title.lower()] = unit.number
    glossary = [] if unit.number else _SEE_RULE_RE.findall(draft.text)
    for number, title in glossary:  # « Hexproof A keyword ability… See rule 702.11, “Hexproof.” »
        if len(title.split()) <= MAX_KEYWORD_WORDS:
            keywords.setdefault(title.strip().lower(), number)
    draft.rule_keywords = keywords
