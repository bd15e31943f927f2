"""Small rulebook PDFs made inside the tests with fpdf2 (no dependency on the demo files)."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _pdf() -> FPDF:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.set_margins(50, 50, 50)
    return pdf


def rulebook_pdf(path: Path, sections: list[tuple[str, list[str]]], *, per_page: int = 2) -> Path:
    """Headings (large bold) each followed by paragraphs; `per_page` sections per page."""
    pdf = _pdf()
    for i, (heading, paragraphs) in enumerate(sections):
        if i % per_page == 0:
            pdf.add_page()
        pdf.set_font("Helvetica", "B", 18)
        pdf.multi_cell(0, 24, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(6)
        pdf.set_font("Helvetica", "", 10)
        for paragraph in paragraphs:
            pdf.multi_cell(0, 13, paragraph, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(8)
    pdf.output(str(path))
    return Path(path)


def two_column_pdf(path: Path, title: str, left: list[str], right: list[str]) -> Path:
    """A full-width title over two columns whose paragraphs line up side by side."""
    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.multi_cell(0, 24, title, new_x="LMARGIN", new_y="NEXT")
    top = pdf.get_y() + 12
    width = (pdf.w - 100 - 30) / 2
    for x, paragraphs in ((50, left), (50 + width + 30, right)):
        pdf.set_xy(x, top)
        pdf.set_font("Helvetica", "", 10)
        for paragraph in paragraphs:
            pdf.set_x(x)
            pdf.multi_cell(width, 13, paragraph, new_x="LEFT", new_y="NEXT")
            pdf.set_y(pdf.get_y() + 8)
    pdf.output(str(path))
    return Path(path)


def page_image(lines: list[str], *, size=(1240, 1754), font_size: int = 34) -> Image.Image:
    """A white 150 DPI A4 page with `lines` of black text, as a scanner would give it."""
    image = Image.new("L", size, color=255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, font_size)
    y = 150
    for line in lines:
        draw.text((120, y), line, fill=0, font=font)
        y += int(font_size * 1.6)
    return image


def scanned_pdf(path: Path, pages: list[list[str] | Image.Image], tmp_dir: Path) -> Path:
    """Each page either text lines drawn into an image (no text layer) or an image."""
    pdf = _pdf()
    for number, page in enumerate(pages, start=1):
        image = page if isinstance(page, Image.Image) else page_image(page)
        image_path = Path(tmp_dir) / f"scan-{number}.png"
        image.save(image_path)
        pdf.add_page()
        pdf.image(str(image_path), x=0, y=0, w=pdf.w, h=pdf.h)
    pdf.output(str(path))
    return Path(path)


def mixed_pdf(path: Path, text_pages: list[str], scanned_lines: list[str], tmp_dir: Path) -> Path:
    """Text pages followed by one scanned page (an image without text layer)."""
    pdf = _pdf()
    for text in text_pages:
        pdf.add_page()
        pdf.set_font("Helvetica", "", 10)
        pdf.multi_cell(0, 13, text, new_x="LMARGIN", new_y="NEXT")
    image_path = Path(tmp_dir) / "scan.png"
    page_image(scanned_lines).save(image_path)
    pdf.add_page()
    pdf.image(str(image_path), x=0, y=0, w=pdf.w, h=pdf.h)
    pdf.output(str(path))
    return Path(path)


def encrypted_pdf(path: Path) -> Path:
    from fpdf.enums import EncryptionMethod

    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 13, "Règles secrètes.")
    pdf.set_encryption(owner_password="owner", user_password="secret", encryption_method=EncryptionMethod.AES_128)
    pdf.output(str(path))
    return Path(path)


LOREM_RULES = [
    (
        "1. Mise en place",
        [
            "Chaque joueur prend un plateau de pilote et place son marqueur de vitesse sur la case zéro. "
            "Mélangez les cartes de course et distribuez-en sept à chaque joueur.",
            "Le premier joueur est celui qui a conduit le plus récemment. Il reçoit le jeton de départ.",
        ],
    ),
    (
        "2. Tour de jeu",
        [
            "Un tour se compose de quatre phases : changer de vitesse, jouer des cartes, révéler et déplacer, "
            "puis ajuster la surchauffe. Les joueurs jouent les phases simultanément sauf indication contraire.",
            "Une carte Boost se joue après avoir révélé ses cartes. Elle ajoute la valeur d'une carte piochée "
            "au déplacement. On ne peut pas jouer de carte Boost après avoir dépassé la limite de vitesse d'un virage.",
        ],
    ),
    (
        "3. Fin de partie",
        [
            "La partie se termine quand le premier pilote franchit la ligne d'arrivée au dernier tour. "
            "Terminez le tour en cours ; le pilote le plus avancé gagne.",
        ],
    ),
]
