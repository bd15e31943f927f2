"""Build the demo rulebooks shipped in games/demo/ (run with `make demo-pdfs`).

Three booklets of an invented game, « Les Aéronautes »:
- the French base rulebook (11 pages: title page, numbered sections, tables, a two-column
  page with sidebars, a page of icons with their meaning);
- the English expansion « Storm Front » (4 pages) that replaces base rules by number;
- a one-page French FAQ that is a *scanned image* with no text layer, so only OCR reads it.

The output is deterministic: fixed creation dates, fixed random seed, no clock or host data.
"""

import io
import json
import math
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from scripts.demo_rulebook import BASE_PAGES, EXPANSION_PAGES, FAQ_PAGE

DEMO_DIR = Path(__file__).resolve().parent.parent / "games" / "demo"
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
CREATED = datetime(2026, 1, 15, 12, 0, tzinfo=timezone.utc)

INK = (35, 38, 52)
ACCENT = (176, 72, 38)
SKY = (60, 110, 160)
PAPER_TINT = (244, 238, 226)


class Booklet(FPDF):
    """A4 booklet with a running header and a page number footer."""

    def __init__(self, title: str, header_text: str, language: str):
        super().__init__(format="A4", unit="mm")
        self.header_text = header_text
        self.set_margins(18, 20, 18)
        self.set_auto_page_break(True, margin=18)
        self.set_creation_date(CREATED)
        self.set_title(title)
        self.set_author("Atelier Oracle (jeu de démonstration)")
        self.set_creator("scripts/make_demo_pdfs.py")
        self.set_lang(language)
        self.add_font("Sans", "", FONT_DIR / "DejaVuSans.ttf")
        self.add_font("Sans", "B", FONT_DIR / "DejaVuSans-Bold.ttf")
        self.add_font("Serif", "", FONT_DIR / "DejaVuSerif.ttf")
        self.add_font("Serif", "B", FONT_DIR / "DejaVuSerif-Bold.ttf")

    def header(self):
        if self.page_no() == 1 or not self.header_text:
            return
        self.set_font("Sans", "", 8)
        self.set_text_color(*SKY)
        self.set_y(9)
        self.cell(0, 5, self.header_text, align="R")
        self.set_draw_color(*SKY)
        self.line(self.l_margin, 15, self.w - self.r_margin, 15)
        self.set_y(self.t_margin)

    def footer(self):
        self.set_y(-13)
        self.set_font("Sans", "", 8)
        self.set_text_color(*INK)
        self.cell(0, 5, f"— {self.page_no()} —", align="C")


# ---------------------------------------------------------------- text blocks


def render_blocks(pdf: Booklet, blocks, width: float | None = None) -> None:
    """Render a list of (kind, *args) blocks at the current position (a column when `width`)."""
    x = pdf.get_x()
    for block in blocks:
        kind, *args = block
        pdf.set_x(x)
        BLOCK_RENDERERS[kind](pdf, *args, width=width)


def skip(pdf, height):
    """Vertical space that keeps the current column (FPDF.ln goes back to the left margin)."""
    x = pdf.get_x()
    pdf.ln(height)
    pdf.set_x(x)


def heading1(pdf, text, width=None):
    skip(pdf, 2)
    pdf.set_font("Sans", "B", 15)
    pdf.set_text_color(*ACCENT)
    pdf.multi_cell(width or 0, 7.5, text, align="L", new_x="LMARGIN" if width is None else "LEFT")
    skip(pdf, 1.5)


def heading2(pdf, text, width=None):
    skip(pdf, 1)
    pdf.set_font("Sans", "B", 11.5)
    pdf.set_text_color(*SKY)
    pdf.multi_cell(width or 0, 6, text, align="L", new_x="LMARGIN" if width is None else "LEFT")
    skip(pdf, 0.5)


def paragraph(pdf, text, width=None):
    pdf.set_font("Serif", "", 10)
    pdf.set_text_color(*INK)
    pdf.multi_cell(width or 0, 5, text, align="J", markdown=True, new_x="LMARGIN" if width is None else "LEFT")
    skip(pdf, 1.5)


def bullets(pdf, items, width=None):
    pdf.set_font("Serif", "", 10)
    pdf.set_text_color(*INK)
    x0 = pdf.get_x()
    inner = (width or pdf.w - pdf.r_margin - x0) - 5
    for item in items:
        pdf.set_x(x0)
        pdf.cell(5, 5, "•")
        pdf.multi_cell(inner, 5, item, align="L", markdown=True, new_x="LEFT")
        pdf.set_x(x0)
    skip(pdf, 1.5)


def boxed(pdf, title, text, width=None):
    """A shaded sidebar box (« Conseil », « Précision », « Example »…)."""
    x, y = pdf.get_x(), pdf.get_y()
    w = width or pdf.w - pdf.r_margin - x
    pdf.set_font("Serif", "", 9.5)
    lines = pdf.multi_cell(w - 8, 4.6, text, markdown=True, dry_run=True, output="LINES")
    h = 4 + 6 + 4.6 * len(lines) + 3
    pdf.set_fill_color(*PAPER_TINT)
    pdf.set_draw_color(*ACCENT)
    pdf.set_line_width(0.5)
    pdf.rect(x, y, w, h, style="DF")
    pdf.set_xy(x + 4, y + 3)
    pdf.set_font("Sans", "B", 10)
    pdf.set_text_color(*ACCENT)
    pdf.cell(w - 8, 6, title)
    pdf.set_xy(x + 4, y + 9)
    pdf.set_font("Serif", "", 9.5)
    pdf.set_text_color(*INK)
    pdf.multi_cell(w - 8, 4.6, text, align="L", markdown=True)
    pdf.set_line_width(0.2)
    pdf.set_xy(x, y + h + 3)


def table(pdf, headings, rows, col_widths, width=None):
    pdf.set_font("Serif", "", 9.5)
    pdf.set_text_color(*INK)
    pdf.set_draw_color(*SKY)
    pdf.set_fill_color(255, 255, 255)
    with pdf.table(
        col_widths=col_widths,
        text_align="LEFT",
        line_height=5.5,
        headings_style=_heading_style(),
        borders_layout="HORIZONTAL_LINES",
        padding=1.2,
    ) as t:
        for cells in [headings, *rows]:
            row = t.row()
            for cell in cells:
                row.cell(cell)
    skip(pdf, 3)


def _heading_style():
    from fpdf.fonts import FontFace

    return FontFace(family="Sans", emphasis="BOLD", color=(255, 255, 255), fill_color=SKY)


def spacer(pdf, height, width=None):
    skip(pdf, height)


BLOCK_RENDERERS = {
    "h1": heading1,
    "h2": heading2,
    "p": paragraph,
    "ul": bullets,
    "box": boxed,
    "table": table,
    "space": spacer,
}


# ---------------------------------------------------------------- vector icons


def draw_icon(pdf: Booklet, name: str, x: float, y: float, size: float = 16) -> None:
    """Draw one of the game's icons in the square (x, y, size)."""
    pdf.set_line_width(0.4)
    ICONS[name](pdf, x, y, size)
    pdf.set_line_width(0.2)


def _scaled(x, y, s, unit_points):
    """Points given in a unit square, placed in the icon's square (x, y, s)."""
    return [(x + px * s, y + py * s) for px, py in unit_points]


def _icon_flame(pdf, x, y, s):
    pdf.set_fill_color(235, 120, 40)
    pdf.set_draw_color(150, 60, 20)
    cx = x + s / 2
    points = [(cx, y + 0.05 * s)]
    for i in range(0, 181, 15):
        a = math.radians(i)
        points.append((cx + 0.32 * s * math.cos(a), y + 0.65 * s + 0.3 * s * math.sin(a)))
    points.append((cx + 0.05 * s, y + 0.3 * s))
    pdf.polygon(points[:1] + points[1:], style="DF")
    pdf.set_fill_color(250, 210, 80)
    pdf.ellipse(cx - 0.12 * s, y + 0.6 * s, 0.24 * s, 0.3 * s, style="F")


def _icon_ballast(pdf, x, y, s):
    pdf.set_fill_color(170, 130, 80)
    pdf.set_draw_color(90, 60, 30)
    pdf.rect(x + 0.2 * s, y + 0.35 * s, 0.6 * s, 0.55 * s, style="DF", round_corners=True, corner_radius=0.1 * s)
    pdf.polygon([(x + 0.35 * s, y + 0.35 * s), (x + 0.65 * s, y + 0.35 * s), (x + 0.5 * s, y + 0.15 * s)], style="DF")
    pdf.set_font("Sans", "B", 0.35 * s * 2.83)
    pdf.set_text_color(255, 255, 255)
    pdf.text(x + 0.4 * s, y + 0.75 * s, "L")


def _icon_spyglass(pdf, x, y, s):
    pdf.set_fill_color(120, 90, 60)
    pdf.set_draw_color(60, 40, 20)
    pdf.polygon(_scaled(x, y, s, [(0.1, 0.75), (0.2, 0.9), (0.7, 0.45), (0.6, 0.3)]), style="DF")
    pdf.set_fill_color(200, 220, 240)
    pdf.ellipse(x + 0.58 * s, y + 0.1 * s, 0.3 * s, 0.3 * s, style="DF")


def _icon_anchor(pdf, x, y, s):
    pdf.set_draw_color(40, 60, 110)
    pdf.set_line_width(0.9)
    cx = x + s / 2
    pdf.ellipse(cx - 0.08 * s, y + 0.08 * s, 0.16 * s, 0.16 * s)
    pdf.line(cx, y + 0.24 * s, cx, y + 0.88 * s)
    pdf.line(cx - 0.2 * s, y + 0.35 * s, cx + 0.2 * s, y + 0.35 * s)
    previous = None
    for i in range(0, 181, 15):
        a = math.radians(i)
        point = (cx + 0.35 * s * math.cos(a), y + 0.55 * s + 0.33 * s * math.sin(a))
        if previous:
            pdf.line(*previous, *point)
        previous = point


def _icon_mist(pdf, x, y, s):
    pdf.set_fill_color(190, 195, 205)
    pdf.set_draw_color(120, 125, 140)
    for dx, dy, r in ((0.15, 0.35, 0.3), (0.35, 0.2, 0.38), (0.55, 0.35, 0.3)):
        pdf.ellipse(x + dx * s, y + dy * s, r * s, r * s, style="F")
    for i, dy in enumerate((0.75, 0.85, 0.95)):
        pdf.line(x + (0.1 + 0.1 * i) * s, y + dy * s, x + (0.9 - 0.1 * i) * s, y + dy * s)


def _icon_updraft(pdf, x, y, s):
    pdf.set_fill_color(70, 150, 90)
    pdf.set_draw_color(30, 90, 50)
    for dx in (0.22, 0.58):
        left = x + dx * s
        pdf.polygon(
            [(left + 0.1 * s, y + 0.05 * s), (left + 0.22 * s, y + 0.35 * s), (left + 0.14 * s, y + 0.35 * s),
             (left + 0.14 * s, y + 0.95 * s), (left + 0.06 * s, y + 0.95 * s), (left + 0.06 * s, y + 0.35 * s),
             (left - 0.02 * s, y + 0.35 * s)],
            style="DF",
        )


def _icon_lighthouse(pdf, x, y, s):
    pdf.set_fill_color(230, 230, 230)
    pdf.set_draw_color(150, 30, 30)
    pdf.polygon(_scaled(x, y, s, [(0.38, 0.3), (0.62, 0.3), (0.7, 0.95), (0.3, 0.95)]), style="DF")
    pdf.set_fill_color(200, 50, 50)
    pdf.rect(x + 0.34 * s, y + 0.55 * s, 0.32 * s, 0.1 * s, style="F")
    pdf.set_fill_color(250, 210, 80)
    pdf.rect(x + 0.4 * s, y + 0.15 * s, 0.2 * s, 0.15 * s, style="DF")
    pdf.set_draw_color(230, 170, 40)
    for sign in (-1, 1):
        pdf.line(x + 0.5 * s + sign * 0.12 * s, y + 0.2 * s, x + 0.5 * s + sign * 0.45 * s, y + 0.05 * s)
        pdf.line(x + 0.5 * s + sign * 0.12 * s, y + 0.25 * s, x + 0.5 * s + sign * 0.45 * s, y + 0.35 * s)


def _icon_reef(pdf, x, y, s):
    pdf.set_fill_color(90, 90, 100)
    pdf.set_draw_color(40, 40, 50)
    for dx, h in ((0.05, 0.5), (0.3, 0.75), (0.55, 0.6)):
        pdf.polygon(_scaled(x, y, s, [(dx, 0.9), (dx + 0.2, 0.9 - h), (dx + 0.4, 0.9)]), style="DF")
    pdf.set_draw_color(60, 120, 180)
    pdf.line(x, y + 0.95 * s, x + s, y + 0.95 * s)


def _icon_gust(pdf, x, y, s):
    pdf.set_draw_color(*SKY)
    pdf.set_line_width(0.8)
    for dy, length in ((0.3, 0.8), (0.5, 0.6), (0.7, 0.75)):
        pdf.line(x + 0.1 * s, y + dy * s, x + length * s, y + dy * s)
        pdf.ellipse(x + length * s - 0.05 * s, y + (dy - 0.1) * s, 0.1 * s, 0.1 * s)


def _icon_lightning(pdf, x, y, s):
    pdf.set_fill_color(250, 200, 40)
    pdf.set_draw_color(120, 90, 10)
    pdf.polygon(
        [(x + 0.55 * s, y + 0.02 * s), (x + 0.2 * s, y + 0.55 * s), (x + 0.45 * s, y + 0.55 * s),
         (x + 0.35 * s, y + 0.98 * s), (x + 0.8 * s, y + 0.4 * s), (x + 0.55 * s, y + 0.4 * s)],
        style="DF",
    )


def _icon_rod(pdf, x, y, s):
    pdf.set_draw_color(80, 80, 90)
    pdf.set_line_width(1.0)
    pdf.line(x + 0.5 * s, y + 0.1 * s, x + 0.5 * s, y + 0.95 * s)
    pdf.line(x + 0.3 * s, y + 0.95 * s, x + 0.7 * s, y + 0.95 * s)
    pdf.set_fill_color(250, 200, 40)
    pdf.ellipse(x + 0.42 * s, y + 0.02 * s, 0.16 * s, 0.16 * s, style="F")


def _icon_buoy(pdf, x, y, s):
    pdf.set_line_width(2.2)
    pdf.set_draw_color(220, 60, 40)
    pdf.ellipse(x + 0.18 * s, y + 0.18 * s, 0.64 * s, 0.64 * s)
    pdf.set_draw_color(255, 255, 255)
    pdf.line(x + 0.5 * s, y + 0.12 * s, x + 0.5 * s, y + 0.26 * s)
    pdf.line(x + 0.5 * s, y + 0.74 * s, x + 0.5 * s, y + 0.88 * s)


def _icon_balloon(pdf, x, y, s):
    pdf.set_fill_color(*ACCENT)
    pdf.set_draw_color(*INK)
    pdf.ellipse(x + 0.15 * s, y, 0.7 * s, 0.7 * s, style="DF")
    pdf.set_fill_color(250, 210, 80)
    pdf.ellipse(x + 0.38 * s, y, 0.24 * s, 0.7 * s, style="F")
    pdf.line(x + 0.25 * s, y + 0.6 * s, x + 0.4 * s, y + 0.82 * s)
    pdf.line(x + 0.75 * s, y + 0.6 * s, x + 0.6 * s, y + 0.82 * s)
    pdf.set_fill_color(140, 100, 60)
    pdf.rect(x + 0.38 * s, y + 0.82 * s, 0.24 * s, 0.15 * s, style="DF")


ICONS = {
    "flame": _icon_flame,
    "ballast": _icon_ballast,
    "spyglass": _icon_spyglass,
    "anchor": _icon_anchor,
    "mist": _icon_mist,
    "updraft": _icon_updraft,
    "lighthouse": _icon_lighthouse,
    "reef": _icon_reef,
    "gust": _icon_gust,
    "lightning": _icon_lightning,
    "rod": _icon_rod,
    "buoy": _icon_buoy,
    "balloon": _icon_balloon,
}


def icon_legend(pdf: Booklet, entries, width=None) -> None:
    """Icons in a column, each with its name and the rule it stands for."""
    x0 = pdf.l_margin
    text_w = pdf.w - pdf.r_margin - x0 - 26
    for icon, name, meaning in entries:
        y = pdf.get_y()
        pdf.set_draw_color(*SKY)
        pdf.rect(x0, y, 20, 20)
        draw_icon(pdf, icon, x0 + 2, y + 2, 16)
        pdf.set_xy(x0 + 25, y)
        pdf.set_font("Sans", "B", 10.5)
        pdf.set_text_color(*ACCENT)
        pdf.cell(text_w, 5.5, name, new_x="LEFT", new_y="NEXT")
        pdf.set_font("Serif", "", 9.5)
        pdf.set_text_color(*INK)
        pdf.multi_cell(text_w, 4.6, meaning, align="L", markdown=True, new_x="LEFT")
        pdf.set_xy(x0, max(pdf.get_y(), y + 20) + 3.5)


BLOCK_RENDERERS["icons"] = icon_legend


def layers_diagram(pdf: Booklet, layers, width=None) -> None:
    """Three stacked sky bands, each labelled with its drift distance."""
    x, y = pdf.get_x(), pdf.get_y()
    w = width or pdf.w - pdf.r_margin - x
    for i, (label, shade) in enumerate(zip(layers, ((150, 185, 220), (180, 210, 235), (215, 232, 245)))):
        pdf.set_fill_color(*shade)
        pdf.rect(x, y + i * 14, w, 14, style="F")
        pdf.set_xy(x + 16, y + i * 14 + 4)
        pdf.set_font("Sans", "B", 9.5)
        pdf.set_text_color(*INK)
        pdf.cell(w - 18, 6, label)
    draw_icon(pdf, "balloon", x + 2, y + 16, 11)
    pdf.set_fill_color(120, 160, 90)
    pdf.rect(x, y + 42, w, 4, style="F")
    pdf.set_xy(x, y + 49)


BLOCK_RENDERERS["layers"] = layers_diagram


# ---------------------------------------------------------------- page layouts


def title_page(pdf: Booklet, page: dict) -> None:
    pdf.set_fill_color(*PAPER_TINT)
    pdf.rect(0, 0, pdf.w, pdf.h, style="F")
    draw_icon(pdf, "balloon", pdf.w / 2 - 30, 30, 60)
    pdf.set_y(100)
    pdf.set_font("Sans", "B", 34)
    pdf.set_text_color(*ACCENT)
    pdf.cell(0, 16, page["title"], align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Sans", "", 14)
    pdf.set_text_color(*SKY)
    pdf.multi_cell(0, 7, page["subtitle"], align="C", new_x="LMARGIN")
    skip(pdf, 4)
    pdf.set_font("Sans", "B", 11)
    pdf.set_text_color(*INK)
    pdf.cell(0, 6, page["facts"], align="C", new_x="LMARGIN", new_y="NEXT")
    skip(pdf, 8)
    render_blocks(pdf, page["blocks"])


def flowing_page(pdf: Booklet, page: dict) -> None:
    render_blocks(pdf, page["blocks"])


def two_column_page(pdf: Booklet, page: dict) -> None:
    """Main rules in the left column, the same flow continuing right, sidebars at the bottom right."""
    render_blocks(pdf, page.get("intro", []))
    top = pdf.get_y()
    gutter = 8
    col_w = (pdf.w - pdf.l_margin - pdf.r_margin - gutter) / 2
    pdf.set_xy(pdf.l_margin, top)
    render_blocks(pdf, page["left"], width=col_w)
    right_x = pdf.l_margin + col_w + gutter
    pdf.set_xy(right_x, top)
    render_blocks(pdf, page["right"], width=col_w)


LAYOUTS = {"title": title_page, "flow": flowing_page, "columns": two_column_page}


def build_text_booklet(pages: list[dict], title: str, header_text: str, language: str) -> bytes:
    pdf = Booklet(title, header_text, language)
    for number, page in enumerate(pages, start=1):
        pdf.add_page()
        LAYOUTS[page["layout"]](pdf, page)
        if pdf.page_no() != number:
            raise SystemExit(f"{title}: page {number} overflowed onto page {pdf.page_no()}")
    return bytes(pdf.output())


# ---------------------------------------------------------------- the scanned page


def scanned_page_image(page: dict, dpi: int = 300, seed: int = 7) -> Image.Image:
    """Typeset the page as a 300 DPI greyscale 'scan': tilted, speckled, slightly blurred."""
    width, height = int(8.27 * dpi), int(11.69 * dpi)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    margin = int(0.9 * dpi)
    y = int(0.9 * dpi)
    for kind, text in page["lines"]:
        font = ImageFont.truetype(str(FONT_DIR / ("DejaVuSerif-Bold.ttf" if kind != "p" else "DejaVuSerif.ttf")),
                                  {"title": 64, "q": 44, "p": 44, "small": 34}[kind])
        for line in _wrap(draw, text, font, width - 2 * margin):
            draw.text((margin, y), line, font=font, fill=25)
            y += int(font.size * 1.45)
        y += int(font.size * (0.9 if kind in ("title", "p") else 0.25))
    image = image.rotate(0.6, resample=Image.Resampling.BICUBIC, fillcolor=250)
    rng = random.Random(seed)
    pixels = image.load()
    for _ in range(6000):
        x, y = rng.randrange(width), rng.randrange(height)
        pixels[x, y] = rng.choice((120, 160, 200))
    return image.filter(ImageFilter.GaussianBlur(0.7))


def _wrap(draw, text, font, max_width):
    lines, current = [], ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if draw.textlength(candidate, font=font) <= max_width:
            current = candidate
        else:
            lines.append(current)
            current = word
    return lines + [current]


def build_scanned_booklet(page: dict) -> bytes:
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_creation_date(CREATED)
    pdf.set_title(page["title"])
    pdf.set_author("Atelier Oracle (jeu de démonstration)")
    pdf.set_creator("scripts/make_demo_pdfs.py")
    pdf.add_page()
    buffer = io.BytesIO()
    scanned_page_image(page).save(buffer, format="JPEG", quality=70, optimize=True)
    buffer.seek(0)
    pdf.image(buffer, x=0, y=0, w=pdf.w, h=pdf.h)
    return bytes(pdf.output())


# ---------------------------------------------------------------- entry point


def build_all(out_dir: Path = DEMO_DIR) -> dict[str, Path]:
    manifest = json.loads((DEMO_DIR / "manifest.json").read_text())
    builders = {
        "base": lambda: build_text_booklet(
            BASE_PAGES, "Les Aéronautes — Règles du jeu", "Les Aéronautes — Règles du jeu", "fr"
        ),
        "extension": lambda: build_text_booklet(
            EXPANSION_PAGES, "Les Aéronautes — Storm Front", "Les Aéronautes — Storm Front (expansion rules)", "en"
        ),
        "faq": lambda: build_scanned_booklet(FAQ_PAGE),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    written = {}
    for booklet in manifest["booklets"]:
        path = out_dir / booklet["file"]
        path.write_bytes(builders[booklet["kind"]]())
        written[booklet["slug"]] = path
    return written


def main() -> None:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else DEMO_DIR
    for slug, path in build_all(out_dir).items():
        print(f"{slug}: {path} ({path.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
