"""Tables of numbers read as labelled rows: each value with its row's and its column's label.

pdfminer gives a table as loose lines: its labels in one box, its numbers in another, so the
passage read « Players Liberal Fascist 6 7 8 9 … 3 4 4 4 … » and no number kept its label.
A player reads « with 8 players: 5 Liberals ». We find tables by geometry, from their numbers:

- a *numeric column* is at least MIN_ROWS numbers (« 3 », « 12 », « 6+ », « 2-3 ») aligned on
  their left edge, right edge or centre, stacked one line apart;
- numeric columns sharing their rows make one table; each row's label is the text just left
  of its first number (no wider gap than a column gutter), a text cell right of the last
  number is kept with its column; the row just above, when its words sit over the columns,
  is the header; a line with words but no number between two rows (« +Hitler ») completes
  the label above it;
- a table whose first row is a player count (« Players 6 7 8 », « Joueurs 3 4 5 ») is read
  by column: « Players 6 — Liberal: 4, Fascist: 1, Communist: 1. »; any other table row
  by row: « Plateau de l'archipel — Quantité: 1, Utilisation: Cases d'île et de mer. »

The table's lines leave the text boxes they came in; the table takes their place on the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pdfminer.layout import LTChar, LTTextLine

NUMBER_RE = re.compile(r"[+\-−]?\d{1,4}(?:[.,]\d+)?(?:\+|[-–]\d{1,4})?%?")
PLAYER_COUNT_RE = re.compile(r"\b(?:players?|joueu(?:r|se)s?|spieler|jugadores)\b", re.IGNORECASE)
CONTENTS_LINE_RE = re.compile(r"^\d{1,3}\.?\s")
MAX_UNIT_WORDS = 4
MAX_LABEL_WORDS = 8  # « 10 points », « 6 points de bonus »
MIN_ROWS = 3
ALIGN = 0.45  # column edges align within this share of the font size
ROW_STEP = 2.4  # consecutive rows lie within this many font sizes of each other
GUTTER = 2.6  # a wider gap (in font sizes) ends a row's label or trailing cell
CELL_GAP = 1.0  # a label or text cell stands at least one font size away from the numbers
WORD_GAP = 0.3  # a gap between two characters wider than this (in font sizes) splits words


@dataclass
class Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    line: int  # id() of its LTTextLine

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2

    @property
    def numeric(self) -> bool:
        return bool(NUMBER_RE.fullmatch(self.text))


@dataclass
class Table:
    top: float
    bottom: float
    x0: float
    x1: float
    text: str
    size: float
    lines: set[int] = field(default_factory=set)  # ids of the LTTextLines it took


def words_of(line: LTTextLine, height: float) -> list[Word]:
    """The words of one line: runs of characters with no space and no wide gap between them."""
    words: list[Word] = []
    run: list[LTChar] = []

    def close() -> None:
        if run:
            text = "".join(c.get_text() for c in run)
            words.append(Word(text, run[0].x0, run[-1].x1, height - max(c.y1 for c in run), height - min(c.y0 for c in run),
                              max(c.size for c in run), id(line)))
            run.clear()

    for char in line:
        if not isinstance(char, LTChar) or char.get_text().isspace():
            close()
            continue
        if run and char.x0 - run[-1].x1 > WORD_GAP * max(char.size, 1.0):
            close()
        run.append(char)
    close()
    return words


def find_tables(lines: list[LTTextLine], height: float) -> list[Table]:
    words = [w for line in lines for w in words_of(line, height)]
    rows = _rows(words)
    tables = []
    used: set[int] = set()  # id() of words already in a table
    for column in _numeric_columns(words):
        if any(id(w) in used for w in column):
            continue
        table = _table(column, words, rows, used)
        if table:
            tables.append(table)
    return tables


def _rows(words: list[Word]) -> list[list[Word]]:
    """Words grouped by line of the page (their vertical middles close), each row left to right."""
    rows: list[list[Word]] = []
    for word in sorted(words, key=lambda w: w.middle):
        if rows and abs(rows[-1][0].middle - word.middle) <= 0.4 * word.size:
            rows[-1].append(word)
        else:
            rows.append([word])
    return [sorted(row, key=lambda w: w.x0) for row in rows]


def _aligned(a: Word, b: Word) -> bool:
    tolerance = ALIGN * max(a.size, b.size)
    return (abs(a.x0 - b.x0) <= tolerance or abs(a.x1 - b.x1) <= tolerance
            or abs((a.x0 + a.x1) / 2 - (b.x0 + b.x1) / 2) <= tolerance)


def _numeric_columns(words: list[Word]) -> list[list[Word]]:
    """Runs of MIN_ROWS or more numbers stacked one under the other, aligned; top-left first."""
    numbers = sorted((w for w in words if w.numeric), key=lambda w: (w.top, w.x0))
    columns: list[list[Word]] = []
    for word in numbers:
        for column in columns:
            last = column[-1]
            if _aligned(last, word) and 0 < word.middle - last.middle <= ROW_STEP * word.size:
                column.append(word)
                break
        else:
            columns.append([word])
    return sorted((c for c in columns if len(c) >= MIN_ROWS), key=lambda c: (c[0].top, c[0].x0))


def _same_row(a: Word, b: Word) -> bool:
    return abs(a.middle - b.middle) <= 0.4 * max(a.size, b.size)


def _table(seed: list[Word], words: list[Word], rows: list[list[Word]], used: set[int]) -> Table | None:
    size = seed[0].size
    # The rows of the table: the page rows that hold one of the seed column's numbers.
    table_rows = [row for row in rows if any(w is n for n in seed for w in row)]
    cells = [_numbers_around(seed, row, size) for row in table_rows]
    columns = _columns(cells, size)
    if not columns:
        return None
    parsed = []  # (label words, values by column, trailing words, row, every word of the row's cells)
    for row, numbers in zip(table_rows, cells):
        entry = _parse_row(row, numbers, columns, size)
        if entry is None:
            return None
        parsed.append(entry)
    if not _looks_like_a_table(parsed, size):
        return None
    left, right = min(c[0] for c in columns), max(c[1] for c in columns)
    label_left = min((p[0][0].x0 for p in parsed if p[0]), default=left)
    trailing_right = max(w.x1 for p in parsed for w in p[4])
    top, bottom = min(w.top for p in parsed for w in p[4]), max(w.bottom for p in parsed for w in p[4])
    taken: list[Word] = [w for p in parsed for w in p[4]]
    labels = _labels(rows, parsed, taken, (top, bottom), (label_left, trailing_right))
    header = _header(rows, parsed, columns, label_left, trailing_right, right, size)
    if header:
        taken.extend(header[0])
        top = min(top, min(w.top for w in header[0]))
    text = _render(labels, [p[1] for p in parsed], [" ".join(w.text for w in p[2]) for p in parsed], columns, header)
    if not text:
        return None
    used.update(id(w) for w in taken)
    # A line is the table's only when all of its words are (else it stays in the text).
    ids = _ids(taken)
    lines = {line for line in {w.line for w in taken} if all(id(w) in ids for w in words if w.line == line)}
    x0, x1 = min(w.x0 for w in taken), max(w.x1 for w in taken)
    return Table(top=top, bottom=bottom, x0=x0, x1=x1, text=text, size=size, lines=lines)


def _numbers_around(seed: list[Word], row: list[Word], size: float) -> list[Word]:
    """The seed column's number on this row with its neighbouring numbers (other numeric
    columns), chained by short gaps."""
    at = next(i for i, w in enumerate(row) if any(w is n for n in seed))
    start = end = at
    while start > 0 and row[start - 1].numeric and row[start].x0 - row[start - 1].x1 < GUTTER * size:
        start -= 1
    while end + 1 < len(row) and row[end + 1].numeric and row[end + 1].x0 - row[end].x1 < GUTTER * size:
        end += 1
    return row[start : end + 1]


def _parse_row(row: list[Word], numbers: list[Word], columns, size: float):
    """(label, values by column, trailing cell, row, its words), or None when the numbers sit
    inside running prose (« draw 2 cards ») or beside a list."""
    first, last = min(w.x0 for w in numbers), max(w.x1 for w in numbers)
    label = _segments([w for w in row if w.x1 <= first + 0.1], size)[-1:]
    trailing = _segments([w for w in row if w.x0 >= last - 0.1 and not any(w is n for n in numbers)], size)[:1]
    label, trailing = (label[0] if label else []), (trailing[0] if trailing else [])
    unit = []
    if trailing and trailing[0].x0 - last < CELL_GAP * size:
        unit, trailing = trailing, []  # « 10 points », « 1 point par paire de Flammes »: the value's unit
    if label and (first - label[-1].x1 < CELL_GAP * size or len(label) > MAX_LABEL_WORDS or label[-1].text[-1] in ".,;:"):
        return None
    values = {}
    for word in numbers:
        index = _column_of(word, columns)
        if index is not None:
            values[index] = word.text
    if unit and values:
        values[max(values)] = " ".join([values[max(values)], *(w.text for w in unit)])
    return (label, values, trailing, row, [*label, *numbers, *unit, *trailing])


def _looks_like_a_table(parsed: list, size: float) -> bool:
    starts = [p[0][0].x0 for p in parsed if p[0]]
    if starts and max(starts) - min(starts) > ALIGN * size * 2:
        return False  # labels of a table start on one edge
    if len(parsed) < MIN_ROWS:
        return False
    # A table of contents (« 5. Les actions … 5–6 ») is not a table of rules.
    return sum(bool(CONTENTS_LINE_RE.match(" ".join(w.text for w in p[0]))) for p in parsed) <= len(parsed) / 2


def _labels(rows, parsed, taken: list[Word], span: tuple[float, float], edges: tuple[float, float]) -> list[str]:
    """Each row's label; a line between the rows with no number (« +Hitler ») completes the
    label above it (its words join `taken`)."""
    (top, bottom), (label_left, trailing_right) = span, edges
    labels = [" ".join(w.text for w in p[0]) for p in parsed]
    for row in rows:
        if top < row[0].middle < bottom and not any(w.numeric for w in row) and not any(id(w) in _ids(taken) for w in row):
            inside = [w for w in row if w.x0 >= label_left - 0.1 and w.x1 <= trailing_right + 0.1]
            above = [i for i, p in enumerate(parsed) if p[3][0].middle < row[0].middle]
            if inside and above and not _straddles(row, label_left, trailing_right):
                labels[above[-1]] = f"{labels[above[-1]]} {' '.join(w.text for w in inside)}".strip()
                taken.extend(inside)
    return labels


def _straddles(row: list[Word], left: float, right: float) -> bool:
    """A word of the row crosses the table's edge: the line is prose running past the table."""
    return any(w.x0 < left - 0.1 < w.x1 or w.x0 < right + 0.1 < w.x1 for w in row)


def _ids(words: list[Word]) -> set[int]:
    return {id(w) for w in words}


def _columns(cells: list[list[Word]], size: float) -> list[tuple[float, float]]:
    """The x-extents of the numeric columns found in at least MIN_ROWS rows."""
    spans: list[list[float]] = []
    counts: list[int] = []
    for numbers in cells:
        for word in numbers:
            for i, span in enumerate(spans):
                if _overlaps(span, word, size):
                    span[0], span[1] = min(span[0], word.x0), max(span[1], word.x1)
                    counts[i] += 1
                    break
            else:
                spans.append([word.x0, word.x1])
                counts.append(1)
    kept = [(s[0], s[1]) for s, n in zip(spans, counts) if n >= MIN_ROWS]
    return sorted(kept)


def _overlaps(span: list[float], word: Word, size: float) -> bool:
    return word.x0 <= span[1] + ALIGN * size and word.x1 >= span[0] - ALIGN * size


def _column_of(word: Word, columns: list[tuple[float, float]]) -> int | None:
    for index, (x0, x1) in enumerate(columns):
        if word.x0 <= x1 + 0.5 and word.x1 >= x0 - 0.5:
            return index
    return None


def _segments(words: list[Word], size: float) -> list[list[Word]]:
    """Words of one row (left to right) cut at every gutter: the row's cells or columns of text."""
    segments: list[list[Word]] = []
    for word in words:
        if segments and word.x0 - segments[-1][-1].x1 <= GUTTER * size:
            segments[-1].append(word)
        else:
            segments.append([word])
    return segments


def _header(rows, parsed, columns, label_left, trailing_right, right, size):
    """The row just above the table whose words all sit over it: (words, column names)."""
    first = parsed[0][3]
    above = [row for row in rows if row[0].middle < first[0].middle]
    if not above:
        return None
    row = above[-1]
    if first[0].middle - row[0].middle > ROW_STEP * size:
        return None
    inside = [w for w in row if w.x0 >= label_left - size and w.x1 <= trailing_right + size]
    if not inside or _straddles(row, label_left - size, trailing_right + size) or any(w.numeric for w in inside):
        return None
    names = {"label": [], "trailing": []}
    trailing_start = min((p[2][0].x0 for p in parsed if p[2]), default=None)
    for word in inside:
        index = _column_of(word, [(x0 - size, x1 + size) for x0, x1 in columns])
        if trailing_start is not None and word.x0 >= trailing_start - size:
            names["trailing"].append(word.text)
        elif index is not None:
            names.setdefault(index, []).append(word.text)
        elif word.x0 >= right:
            names.setdefault(len(columns) - 1, []).append(word.text)  # « Points de victoire » runs past its column
        else:
            names["label"].append(word.text)
    return inside, {k: " ".join(v) for k, v in names.items()}


def _render(labels, values, trailing, columns, header) -> str:
    names = header[1] if header else {}
    first = values[0]
    if PLAYER_COUNT_RE.search(labels[0]) and len(first) == len(columns) and len(columns) >= 2:
        # A player-count header row: each column is one player count, read down.
        lines = []
        for index in range(len(columns)):
            parts = [f"{label}: {row[index]}" for label, row in zip(labels[1:], values[1:]) if index in row and label]
            if parts:
                lines.append(f"{labels[0]} {first[index]} — {', '.join(parts)}.")
        return "\n".join(lines)
    lines = []
    for label, row, tail in zip(labels, values, trailing):
        parts = []
        for index in range(len(columns)):
            if index in row:
                name = names.get(index, "")
                parts.append(f"{name}: {row[index]}" if name else row[index])
        if tail:
            parts.append(f"{names['trailing']}: {tail}" if names.get("trailing") else tail)
        head = f"{names['label']} {label}" if names.get("label") and not label else label
        if parts:
            lines.append(f"{head} — {', '.join(parts)}." if head else f"{', '.join(parts)}.")
    return "\n".join(lines)
