"""Justified lines put back together.

pdfminer ends a line at a gap wider than `char_margin` characters. Justified text stretches
its word gaps, and a short line of a narrow paragraph can open gaps of a whole em: pdfminer
then cuts it into words, some left in their paragraph's box, some in boxes of their own, and
the page read « Base the metals used to metals account manufacture a smartphone. » then « for
most of » (PhoneImpact p.7). A wider `char_margin` mends those lines but joins neighbouring
columns on other pages.

Here a line is rejoined only inside a column: the words on the baseline of one of a paragraph
box's lines, of the same size, lying within its column's width (`_column`), become one line of
that paragraph in the order they stand. Another column lies outside that width, so it is never joined; bare
numbers (a table's cells, a page number) are left as they are.
"""

from __future__ import annotations

from pdfminer.layout import LAParams, LTChar, LTTextBox, LTTextBoxHorizontal, LTTextLine, LTTextLineHorizontal

BASELINE = 0.25  # lines whose bottoms lie within this share of their height share a baseline
SIZE = 0.2  # and whose heights differ by less than this share
EDGE = 1.0  # points a fragment may stand past its paragraph's edge
MIN_PARAGRAPH_LINES = 2


def rejoin_justified_lines(boxes: list[LTTextBox], laparams: LAParams) -> list[LTTextBox]:
    """The page's text boxes with their cut lines rejoined (the same boxes when none was)."""
    lines = [(box, line) for box in boxes for line in box if isinstance(line, LTTextLineHorizontal) and _has_words(line)]
    taken: set[int] = set()  # ids of the lines moved into another
    joined: dict[int, list[LTTextLine]] = {}  # id(line kept) -> the pieces it now holds, left to right
    paragraphs = [box for box in boxes if isinstance(box, LTTextBoxHorizontal) and len(_lines(box)) >= MIN_PARAGRAPH_LINES]
    for box in paragraphs:
        width = _column(box, paragraphs)
        for line in _lines(box):
            if id(line) in taken or id(line) in joined:
                continue
            pieces = [other for _, other in lines
                      if other is line or (id(other) not in taken and id(other) not in joined and _same_row(line, other, width))]
            if len(pieces) > 1:  # the line stays in its paragraph, whichever piece stands first
                joined[id(line)] = sorted(pieces, key=lambda piece: piece.x0)
                taken |= {id(piece) for piece in pieces if piece is not line}
    if not joined:
        return boxes
    rebuilt = (_rebuilt(box, joined, taken, laparams) for box in boxes)
    return [box for box in rebuilt if box is not None]


def _lines(box: LTTextBox) -> list[LTTextLineHorizontal]:
    return [line for line in box if isinstance(line, LTTextLineHorizontal)]


def _column(box: LTTextBox, paragraphs: list[LTTextBox]) -> tuple[float, float]:
    """The width of `box`'s column: from its left edge to the farthest right edge of the
    paragraphs that start where it starts, at its size (a paragraph of short lines, « Green:
    Recycl' / specializes in … », is narrower than the line its cut words stretched across),
    but never into a paragraph standing beside it (a full-width introduction starting where a
    left column starts would otherwise widen that column over the right one)."""
    height = _lines(box)[0].height
    right = max(other.x1 for other in paragraphs
                if abs(other.x0 - box.x0) <= EDGE and abs(_lines(other)[0].height - height) <= SIZE * height)  # fmt: skip
    beside = [other.x0 for other in paragraphs if other.x0 >= box.x1 - EDGE and other.y0 < box.y1 and other.y1 > box.y0]
    return box.x0, min([right, *beside])


def _has_words(line: LTTextLine) -> bool:
    return any(char.isalpha() for char in line.get_text())


def _same_row(line: LTTextLine, other: LTTextLine, width: tuple[float, float]) -> bool:
    """`other` stands on `line`'s baseline, at its size, beside it and within its column."""
    height = line.height
    return (
        abs(other.y0 - line.y0) <= BASELINE * height
        and abs(other.height - height) <= SIZE * height
        and other.x0 >= width[0] - EDGE
        and other.x1 <= width[1] + EDGE
        and (other.x1 <= line.x0 or other.x0 >= line.x1)
    )


def _rebuilt(box: LTTextBox, joined: dict, taken: set[int], laparams: LAParams) -> LTTextBox | None:
    lines = [line for line in box if not isinstance(line, LTTextLine) or id(line) not in taken]
    if len(lines) == len(list(box)) and not any(id(line) in joined for line in lines):
        return box
    if not lines:
        return None
    new = LTTextBoxHorizontal()  # not analysed again: that would end each line a second time
    for line in sorted(lines, key=lambda line: -line.y1):  # top to bottom, as pdfminer orders a box
        new.add(_joined_line(joined[id(line)], laparams) if id(line) in joined else line)
    return new


def _joined_line(pieces: list[LTTextLine], laparams: LAParams) -> LTTextLineHorizontal:
    """One line of the pieces' characters, left to right; pdfminer puts the spaces back
    between words (`word_margin`), the line break at the end."""
    line = LTTextLineHorizontal(laparams.word_margin)
    for piece in pieces:
        for char in piece:
            if isinstance(char, LTChar):
                line.add(char)
    line.analyze(laparams)
    return line
