"""Step 2: text per page in reading order, with the layout facts hierarchy needs.

pdfminer groups characters into text boxes; we order the boxes ourselves with a
recursive XY-cut that prefers column gaps, so the lines of two neighbouring columns
never interleave (a known cause of wrong answers in other rules assistants).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from pdfminer.high_level import extract_pages
from pdfminer.layout import LAParams, LTChar, LTTextBox, LTTextLine

from . import tables
from .justified import rejoin_justified_lines

# Rule numbers ("702.2b", "4.1", "12.") open a paragraph even inside one text box.
RULE_NUMBER_RE = re.compile(r"^(?:\d{1,4}\.)+\d*[a-z]?\.?\s|^\d{1,4}\.\d+[a-z]?\s")
RULE_NUMBER_ONLY_RE = re.compile(r"(?:\d{1,4}\.)+\d{0,3}[a-z]?")  # « 4.1 », « 12. », « 702.2b » alone on a line
RULE_NUMBER_REACH = 8  # a rule's text starts within this many line heights right of its number
MIN_COLUMN_GAP = 7.0  # points of white space between two columns
PAGE_NUMBER_RE = re.compile(r"\d{1,4}")
PAGE_OF_PAGES_RE = re.compile(r"(\d{1,4})\s*/\s*(\d{1,4})")  # « 1/2 »: the page and the booklet's count
PAGE_NUMBER_DRIFT = 5  # a printed page number is the PDF's page less its cover pages, or so
# Typographic ligatures (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ) spelled out: « ﬁnd » must match a question's « find ».
LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"})
SOFT_HYPHEN = "\u00ad"
LINE_END_HYPHENS = ("-", SOFT_HYPHEN, "\u2010", "\u2011")
LAPARAMS = LAParams(line_margin=0.5, char_margin=2.0, word_margin=0.1, boxes_flow=None)


@dataclass
class Paragraph:
    text: str
    font_size: float = 0.0
    bold: bool = False
    page: int = 0
    heading_level: int = 0  # set by hierarchy.mark_headings
    top: float = -1.0  # where it lies on its page, as fractions of the page's height from its top
    bottom: float = -1.0  # (-1: unknown, e.g. OCR text)


@dataclass
class Page:
    number: int  # 1-based
    paragraphs: list[Paragraph] = field(default_factory=list)
    ocr: bool = False
    furniture: list[str] = field(default_factory=list)  # running headers and footers taken out (furniture.py)

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.paragraphs)

    @property
    def char_count(self) -> int:
        return sum(len(p.text) for p in self.paragraphs)


@dataclass(frozen=True)
class _Box:
    x0: float
    x1: float
    top: float  # distance from the top of the page
    bottom: float
    item: LTTextBox | tables.Table


def read_pages(pdf_path: str | Path, *, table_rows: bool = False) -> Iterator[Page]:
    """Yield the pages of a PDF one by one (never the whole document in memory). `table_rows`:
    tables become labelled rows (the INGEST_TABLE_ROWS setting, tables.find_tables)."""
    for number, layout in enumerate(extract_pages(str(pdf_path), laparams=LAPARAMS), start=1):
        items = rejoin_justified_lines([item for item in layout if isinstance(item, LTTextBox)], LAPARAMS)
        every_line = [line for item in items for line in item if isinstance(line, LTTextLine)]
        sideways = sideways_lines(every_line)
        lines = [line for line in every_line if id(line) not in sideways]
        found = tables.find_tables(lines, layout.height) if table_rows else []
        taken = {line for table in found for line in table.lines} | sideways
        prefixes = rule_number_column(lines, taken)
        taken |= {number for number, _ in prefixes.values()}
        boxes = [_box(item, layout.height) for item in items if any(id(line) not in taken for line in item if isinstance(line, LTTextLine))]
        boxes += [_Box(t.x0, t.x1, t.top, t.bottom, t) for t in found]
        paragraphs = []
        for box in reading_order(boxes):
            if isinstance(box.item, tables.Table):
                t = box.item
                paragraphs.append(Paragraph(text=t.text, font_size=round(t.size, 1), page=number,
                                            top=round(t.top / layout.height, 4), bottom=round(t.bottom / layout.height, 4)))
            else:
                paragraphs.extend(_paragraphs(box.item, number, layout.height, taken, prefixes))
        yield Page(number=number, paragraphs=paragraphs)


def drop_page_numbers(pages: list[Page]) -> int:
    """Remove the printed page number that opens or closes a page; how many were removed.

    It is the page's furniture, not its text, and left in it misled citations: the lone « 13 »
    ending page 13 made the next chunk, all of it page 14's text, a chunk of pages 13–14.
    A number counts as the page's when it stands alone in the page's first or last paragraph
    and is within PAGE_NUMBER_DRIFT of the PDF page number (covers are not always counted);
    « 1/2 » too, its count the booklet's or a few less."""
    removed = 0
    for page in pages:
        for at in (-1, 0):
            filled = [i for i, p in enumerate(page.paragraphs) if p.text.strip()]
            if not filled:
                break
            candidate = page.paragraphs[filled[at]].text.strip()
            if _page_number(candidate, page.number, len(pages)):
                del page.paragraphs[filled[at]]
                removed += 1
    return removed


def sideways_lines(lines: list[LTTextLine]) -> set[int]:
    """The lines set sideways on a page whose text stands upright: a tab along the page's edge
    (« [ actions ] » in d0x3d) comes out letter-spaced and backwards (« ] s n o i t c a [ »),
    and stretched a passage over the next page for a fragment of its edge. A page whose text
    is mostly sideways (turned with /Rotate) keeps every line: {id(line)}."""
    upright = {id(line): [char.upright for char in line if isinstance(char, LTChar) and not char.get_text().isspace()]
               for line in lines}  # fmt: skip
    chars = [flag for flags in upright.values() for flag in flags]
    if 2 * sum(chars) < len(chars):
        return set()
    return {key for key, flags in upright.items() if flags and 2 * sum(flags) < len(flags)}


def _page_number(text: str, page: int, pages: int) -> bool:
    """Whether `text` is page `page`'s printed number: « 13 », or « 1/2 » out of the
    booklet's `pages` (within PAGE_NUMBER_DRIFT below it: covers are not always counted)."""
    if PAGE_NUMBER_RE.fullmatch(text):
        return abs(int(text) - page) <= PAGE_NUMBER_DRIFT
    of_pages = PAGE_OF_PAGES_RE.fullmatch(text)
    if not of_pages:
        return False
    number, count = int(of_pages[1]), int(of_pages[2])  # the count never exceeds the PDF's pages
    return number <= count and abs(number - page) <= PAGE_NUMBER_DRIFT and pages - PAGE_NUMBER_DRIFT <= count <= pages


def rule_number_column(lines: list[LTTextLine], taken: set[int]) -> dict[int, tuple[int, str]]:
    """Rule numbers the PDF sets in a column of their own, joined to their rule's first line.

    Set apart (« 4.1 » in a margin column, the rule in the text column), pdfminer reads the
    numbers as one box and the rules as another, so no rule carried its number. Each number
    alone on its line goes to the nearest line on its right at the same height:
    {id(text line): (id(number line), number)}."""
    numbers = [l for l in lines if id(l) not in taken and RULE_NUMBER_ONLY_RE.fullmatch(l.get_text().strip())]
    texts = [l for l in lines if id(l) not in taken and not RULE_NUMBER_ONLY_RE.fullmatch(l.get_text().strip()) and l.get_text().strip()]
    joined: dict[int, tuple[int, str]] = {}
    for number in numbers:
        height = number.y1 - number.y0
        middle = (number.y0 + number.y1) / 2
        beside = [t for t in texts if id(t) not in joined and number.x1 - 1 <= t.x0 <= number.x1 + RULE_NUMBER_REACH * height
                  and abs((t.y0 + t.y1) / 2 - middle) <= height / 2]
        if beside:
            line = min(beside, key=lambda t: t.x0)
            joined[id(line)] = (id(number), number.get_text().strip())
    return joined


def _box(item: LTTextBox, page_height: float) -> _Box:
    return _Box(item.x0, item.x1, page_height - item.y1, page_height - item.y0, item)


def reading_order(boxes: list[_Box]) -> list[_Box]:
    """Recursive XY-cut: columns left to right first; bands top to bottom when a
    full-width element (title, banner) prevents a column cut."""
    if len(boxes) <= 1:
        return list(boxes)
    columns = _split(boxes, lambda b: (b.x0, b.x1), MIN_COLUMN_GAP)
    if len(columns) > 1:
        return [box for column in columns for box in reading_order(column)]
    bands = _split(boxes, lambda b: (b.top, b.bottom), 0.5)
    if len(bands) == 1:
        return sorted(boxes, key=lambda b: (round(b.top), b.x0))
    ordered = []
    for group in _merge_column_bands(bands):
        ordered.extend(reading_order(group) if len(group) < len(boxes) else sorted(group, key=lambda b: b.top))
    return ordered


def _split(boxes: list[_Box], extent, min_gap: float) -> list[list[_Box]]:
    """Cut `boxes` at every gap of at least `min_gap` along one axis."""
    ordered = sorted(boxes, key=lambda b: extent(b)[0])
    groups: list[list[_Box]] = [[ordered[0]]]
    reach = extent(ordered[0])[1]
    for box in ordered[1:]:
        start, end = extent(box)
        if start - reach >= min_gap:
            groups.append([box])
        else:
            groups[-1].append(box)
        reach = max(reach, end)
    return groups


def _merge_column_bands(bands: list[list[_Box]]) -> list[list[_Box]]:
    """Join consecutive horizontal bands while together they still split into columns,
    so paragraph gaps that happen to line up across columns do not interleave them."""
    groups: list[list[_Box]] = []
    for band in bands:
        if groups and len(_split(groups[-1] + band, lambda b: (b.x0, b.x1), MIN_COLUMN_GAP)) > 1:
            groups[-1] = groups[-1] + band
        else:
            groups.append(list(band))
    return groups


def _paragraphs(box: LTTextBox, page: int, height: float = 0.0, skip: set[int] = frozenset(), prefixes: dict | None = None) -> list[Paragraph]:
    paragraphs: list[Paragraph] = []
    lines: list[str] = []
    sizes: Counter = Counter()
    bold = 0
    span = [-1.0, -1.0]
    for line in box:
        if not isinstance(line, LTTextLine) or id(line) in skip:  # skip: lines a table took
            continue
        text = line.get_text().strip()
        if prefixes and id(line) in prefixes:
            text = f"{prefixes[id(line)][1]} {text}"
        if not text:
            continue
        if lines and RULE_NUMBER_RE.match(text):
            paragraphs.append(_paragraph(lines, sizes, bold, page, span))
            lines, sizes, bold = [], Counter(), 0
        if height:
            top, bottom = round(1 - line.y1 / height, 4), round(1 - line.y0 / height, 4)
            span = [top if not lines else span[0], bottom]
        lines.append(text)
        for char in line:
            if isinstance(char, LTChar) and not char.get_text().isspace():
                sizes[round(char.size, 1)] += 1
                bold += "bold" in char.fontname.lower()
    if lines:
        paragraphs.append(_paragraph(lines, sizes, bold, page, span))
    return paragraphs


def _paragraph(lines: list[str], sizes: Counter, bold: int, page: int, span=(-1.0, -1.0)) -> Paragraph:
    total = sum(sizes.values()) or 1
    size = sizes.most_common(1)[0][0] if sizes else 0.0
    return Paragraph(text=join_lines(lines), font_size=size, bold=bold > total / 2, page=page, top=span[0], bottom=span[1])


def join_lines(lines: list[str]) -> str:
    """One paragraph from its lines: ligatures spelled out, hyphenated words rejoined, lines
    joined by spaces. Some PDFs set every hyphen as a soft hyphen (U+00AD): inside a line it is
    a real one (« Twenty-four »), at a line's end it cuts a word (« re- / capture »)."""
    text = ""
    for line in lines:
        line = line.translate(LIGATURES)
        if text.endswith(LINE_END_HYPHENS) and line[:1].islower():
            text = text[:-1] + line
        else:
            text = f"{text} {line}" if text else line
    return re.sub(r"[ \t]+", " ", text.replace(SOFT_HYPHEN, "-"))
