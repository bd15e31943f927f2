"""A justified line whose word gaps were stretched to an em or more is read as one line, in
its paragraph, not as loose words scattered over the page (PhoneImpact p.6–7, d0x3d); words
of another column on the same baseline stay in their column."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from ingest.stages.read import read_pages
from tests.ingest.pdfs import FONT

SIZE = 10
STRETCHED = "Base metals account for most of the metals used to"  # set with gaps of 1.6 em


def page_with(path: Path, rows: list[tuple[float, float, str, float]]) -> Path:
    """One page; each row (x, y, text, word gap in points) drawn word by word."""
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.add_font("DejaVu", "", FONT)
    pdf.set_font("DejaVu", "", SIZE)
    pdf.add_page()
    for x, y, text, gap in rows:
        for word in text.split():
            pdf.text(x, y, word)
            x += pdf.get_string_width(word) + gap
    pdf.output(str(path))
    return path


def normal(x: float, y: float, text: str) -> tuple[float, float, str, float]:
    return x, y, text, 0.28 * SIZE


def test_a_line_stretched_by_justification_reads_as_one_line_of_its_paragraph(tmp_path):
    pdf = page_with(tmp_path / "justified.pdf", [
        normal(50, 100, "Base metals (e.g. aluminium, copper, iron) can also be called common metals,"),
        normal(50, 114, "since they are the most commonly used metals in industry and in phones."),
        (50, 128, STRETCHED, 1.6 * SIZE),
        normal(50, 142, "manufacture a smartphone, from its casing to its circuits."),
    ])  # fmt: skip

    [page] = list(read_pages(pdf))

    assert [p.text for p in page.paragraphs] == [
        "Base metals (e.g. aluminium, copper, iron) can also be called common metals, since they are the most "
        "commonly used metals in industry and in phones. Base metals account for most of the metals used to "
        "manufacture a smartphone, from its casing to its circuits."
    ]


def test_the_words_of_another_column_on_the_same_baseline_stay_in_their_column(tmp_path):
    pdf = page_with(tmp_path / "columns.pdf", [
        normal(50, 100, "Left column: the active player draws two cards"),
        normal(50, 114, "and then plays one of them face up."),
        normal(50, 128, "Their turn then ends."),
        normal(330, 128, "Discard"),
        normal(330, 142, "Right column: a discarded card never comes back."),
        normal(330, 156, "The discard pile is shuffled when the deck is empty."),
    ])  # fmt: skip

    [page] = list(read_pages(pdf))

    assert "Their turn then ends." in page.paragraphs[0].text
    assert "Discard" not in page.paragraphs[0].text
    assert page.paragraphs[-1].text.startswith("Discard Right column")
