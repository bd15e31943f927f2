"""A justified line whose word gaps were stretched to an em or more is read as one line, in
its paragraph, not as loose words scattered over the page (PhoneImpact p.6–7, d0x3d); words
of another column on the same baseline stay in their column."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from eval.booklets import EVAL_CORPUS

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


def test_a_full_width_introduction_does_not_widen_the_left_column_over_the_right_one(tmp_path):
    rows = [
        normal(50, 60, "Introduction: this paragraph runs across the whole width of the page, from the left margin to"),
        normal(50, 74, "the right margin, as an introduction often does above the two columns of the rules below it."),
    ]
    left = ["The active player draws two cards", "and then plays one of them face up", "before the turn passes to the left."]
    right = ["A discarded card never comes back", "unless an effect says otherwise and", "the discard pile is then shuffled."]
    for i, (on_the_left, on_the_right) in enumerate(zip(left, right)):
        rows += [normal(50, 110 + 14 * i, on_the_left), normal(310, 110 + 14 * i, on_the_right)]

    [page] = list(read_pages(page_with(tmp_path / "columns.pdf", rows)))

    assert " ".join(left) in page.text and " ".join(right) in page.text


D0X3D = EVAL_CORPUS / "unseen/d0x3d_rules_v1.1_en.pdf"  # ../shared/eval-corpus, as eval finds it


@pytest.mark.skipif(not D0X3D.is_file(), reason="needs the eval corpus (../shared/eval-corpus or EVAL_CORPUS_DIR)")
def test_a_rejoined_line_stays_in_its_paragraph_when_its_first_word_stood_in_a_box_of_its_own():
    """d0x3d! p.11: the line went with its first word's box, out of its paragraph, which read
    « … make it harder to becomes less connected … »."""
    pages = {page.number: page for page in read_pages(D0X3D)}

    assert ("Be careful: decommissioned machines make it harder to move through the network, as the board "
            "becomes less connected") in pages[11].text
    assert "[financial data] If it’s worth money or about money, it’s financial data:" in pages[4].text
