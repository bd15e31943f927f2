"""Real PDFs for browser tests: one page per page of text (fpdf2, DejaVu fonts)."""

from pathlib import Path

from fpdf import FPDF

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def pdf_of_pages(pages: dict[int, str]) -> bytes:
    pdf = FPDF(format="A5")
    pdf.add_font("Sans", "", FONT)
    pdf.set_font("Sans", "", 11)
    for number in sorted(pages):
        pdf.add_page()
        title, _, body = pages[number].partition("\n")
        pdf.set_font("Sans", "", 15)
        pdf.multi_cell(0, 8, title)
        pdf.ln(2)
        pdf.set_font("Sans", "", 11)
        pdf.multi_cell(0, 6, body)
    return bytes(pdf.output())
