"""Helpers of the viewer's browser tests: where words really are on a page, and where the
viewer drew its highlight boxes, both in screen pixels (getBoundingClientRect)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from pdfminer.high_level import extract_pages
from pdfminer.layout import LTChar, LTTextBox, LTTextLine


@dataclass(frozen=True)
class Box:
    left: float
    top: float
    right: float
    bottom: float

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.bottom - self.top

    def overlap(self, other: "Box") -> float:
        """The share of this box's area covered by `other`."""
        w = max(0.0, min(self.right, other.right) - max(self.left, other.left))
        h = max(0.0, min(self.bottom, other.bottom) - max(self.top, other.top))
        return w * h / (self.width * self.height)


def union(boxes: list[Box]) -> Box:
    return Box(min(b.left for b in boxes), min(b.top for b in boxes), max(b.right for b in boxes), max(b.bottom for b in boxes))


def quote_in_pdf(pdf: bytes, page: int, quote: str) -> tuple[Box, tuple[float, float]]:
    """The quote's characters' box on `page` (PDF points from the top-left corner; the
    quote within one line) and the page's size in points, read by pdfminer."""
    for number, layout in enumerate(extract_pages(io.BytesIO(pdf)), start=1):
        if number != page:
            continue
        for box in layout:
            if not isinstance(box, LTTextBox):
                continue
            for line in box:
                if not isinstance(line, LTTextLine):
                    continue
                items = [item for item in line if isinstance(item, LTChar)]  # no LTAnno: pdfminer's guessed spaces
                text = "".join(item.get_text() for item in items)
                start = text.find(quote)
                if start < 0:
                    continue
                chars, at = [], 0
                for item in items:
                    piece = item.get_text()
                    if start <= at < start + len(quote) and not piece.isspace():
                        chars.append(Box(item.x0, layout.height - item.y1, item.x1, layout.height - item.y0))
                    at += len(piece)
                return union(chars), (layout.width, layout.height)
    raise AssertionError(f"{quote!r} is not on page {page}")


def drawn_box(lines: list[str], line: int, phrase: str, *, image=(1240, 1754)) -> Box:
    """Where tests.ingest.pdfs.page_image() drew `phrase` of `lines[line]`, as fractions of
    the page (DejaVu Sans 34 px from x=120 px, lines 54 px apart from y=150 px)."""
    from PIL import ImageFont

    from tests.ingest.pdfs import FONT

    font = ImageFont.truetype(FONT, 34)
    text = lines[line]
    start = text.index(phrase)
    x, y = 120 + font.getlength(text[:start]), 150 + line * int(34 * 1.6)
    left, top, right, bottom = font.getbbox(phrase)
    return Box((x + left) / image[0], (y + top) / image[1], (x + right) / image[0], (y + bottom) / image[1])


def on_screen(page, page_number: int, box: Box, page_size: tuple[float, float]) -> Box:
    """`box` (fractions of `page_size`) placed on the rendered page's canvas."""
    canvas = page.locator(f'.page[data-page-number="{page_number}"] canvas').first.evaluate(
        "c => { const r = c.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }"
    )
    left, top, width, height = canvas
    sx, sy = width / page_size[0], height / page_size[1]
    return Box(left + box.left * sx, top + box.top * sy, left + box.right * sx, top + box.bottom * sy)


def highlight_boxes(page, page_number: int, selector: str) -> list[Box]:
    rects = page.locator(f'.page[data-page-number="{page_number}"] {selector}').evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"
    )
    return [Box(*rect) for rect in rects]


def assert_on_the_words(drawn: list[Box], words: Box, *, slack: float) -> None:
    """The highlight covers the words and stops at them (`slack` pixels of margin around)."""
    assert drawn, "no highlight drawn"
    box = union(drawn)
    assert words.overlap(box) > 0.8, f"highlight {box} misses the words at {words}"  # half a line off: ~0.5
    assert box.left >= words.left - slack and box.right <= words.right + slack, f"highlight {box} runs past the words {words}"
    assert box.top >= words.top - slack and box.bottom <= words.bottom + slack, f"highlight {box} is off the line of {words}"
