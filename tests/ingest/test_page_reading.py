"""The page read as a player reads it: labelled table rows, no running headers or footers in
the text, rule numbers joined to their rule, ligatures and soft hyphens repaired (tables only with the INGEST_TABLE_ROWS setting).
Pages are the demo booklet's (games/demo) or small PDFs made here with fpdf2."""

from __future__ import annotations

import re
from pathlib import Path

from fpdf import FPDF

from ingest.stages.chunk import chunk_pages
from ingest.stages.furniture import attach, drop_running_lines
from ingest.stages.read import Page, Paragraph, read_pages
from tests.ingest.pdfs import FONT

DEMO = Path(__file__).resolve().parents[2] / "games" / "demo" / "les-aeronautes-regles.pdf"


def _pdf() -> FPDF:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.add_font("DejaVu", "", FONT)
    pdf.set_font("DejaVu", "", 10)
    return pdf


def _demo_pages(table_rows: bool = False) -> list[Page]:
    return list(read_pages(DEMO, table_rows=table_rows))


def test_a_table_of_numbers_becomes_rows_whose_values_carry_their_labels(tmp_path):
    pdf = _pdf()
    pdf.add_page()
    pdf.set_xy(50, 50)
    pdf.multi_cell(400, 14, "Mise en place : distribuez les cartes selon le nombre de joueurs.")
    rows = [("Joueurs", ["3", "4", "5"]), ("Cartes en main", ["5", "4", "3"]), ("Jetons Or", ["10", "12", "15"])]
    for i, (label, values) in enumerate(rows):
        y = 100 + i * 16
        pdf.text(50, y, label)
        for j, value in enumerate(values):
            pdf.text(200 + j * 30, y, value)
    pdf.output(str(tmp_path / "table.pdf"))

    [page] = list(read_pages(tmp_path / "table.pdf", table_rows=True))

    assert "Joueurs 3 — Cartes en main: 5, Jetons Or: 10." in page.text
    assert "Joueurs 5 — Cartes en main: 3, Jetons Or: 15." in page.text
    assert "5 4 3" not in page.text  # the bare numbers no longer stand without their labels


def test_the_demo_components_and_scoring_tables_read_row_by_row_with_their_headers():
    pages = _demo_pages(table_rows=True)

    assert "Jetons Flamme (gaz) — Quantité: 40, Utilisation: Payer les montées, le décollage et l'entretien." in pages[1].text
    assert "Jeton Arrivée n° 2 — Points de victoire: 7 points." in pages[9].text
    # Its table of contents is not a table of rules: its lines stay as they are.
    assert "Fin de partie et décompte" in pages[0].text and " — 10." not in pages[0].text


def test_tables_stay_as_pdfminer_reads_them_unless_asked(tmp_path):
    [_, components, *_] = _demo_pages()

    assert "Quantité:" not in components.text and "Jetons Flamme (gaz)" in components.text


def test_numbers_inside_running_prose_are_not_a_table(tmp_path):
    pdf = _pdf()
    pdf.add_page()
    for i, text in enumerate(["draw 2 cards, and play no resource cards,", "draw 1 card, and play 1 resource card,", "draw 0 cards, and play 2 resource cards."]):
        pdf.text(50, 100 + i * 14, text)
    pdf.output(str(tmp_path / "prose.pdf"))

    [page] = list(read_pages(tmp_path / "prose.pdf", table_rows=True))

    assert "draw 2 cards, and play no resource cards," in page.text
    assert "—" not in page.text


def test_running_headers_and_footers_leave_the_text_and_stay_as_the_chunks_metadata():
    pages = _demo_pages()
    assert any("Les Aéronautes — Règles du jeu" in p.text for p in pages)  # as pdfminer reads them

    removed = drop_running_lines(pages)

    assert removed >= 20
    assert not any("Les Aéronautes — Règles du jeu" in p.text for p in pages)
    assert not any(paragraph.text.startswith("— ") for p in pages for paragraph in p.paragraphs)
    assert "Les Aéronautes — Règles du jeu" in pages[4].furniture and "— 5 —" in pages[4].furniture
    drafts = chunk_pages(pages)
    attach(pages, drafts)
    on_page_5 = next(d for d in drafts if d.page_start == 5)
    assert "— 5 —" in on_page_5.page_furniture


def test_titles_that_differ_from_page_to_page_are_not_furniture():
    titles = ["Mise en place", "Tour de jeu", "Les actions", "Fin de partie", "Variantes"]
    pages = [Page(number=n, paragraphs=[Paragraph(text=title, top=0.02, bottom=0.05, page=n),
                                        Paragraph(text="Corps du texte.", top=0.3, bottom=0.5, page=n)])
             for n, title in enumerate(titles, start=1)]

    assert drop_running_lines(pages) == 0
    assert [p.paragraphs[0].text for p in pages] == titles


def test_numbered_sections_opening_each_page_are_headings_not_furniture():
    """« 1. Rule one », « 2. Rule two »…: the same line digits aside, at the top of every page,
    but each is its page's section heading (a page footer's number has no dot)."""
    pages = [Page(number=n, paragraphs=[Paragraph(text=f"{n}. Règle numéro {n}", top=0.02, bottom=0.05, page=n),
                                        Paragraph(text="Corps du texte.", top=0.3, bottom=0.5, page=n),
                                        Paragraph(text=f"{n} Les Aéronautes", top=0.95, bottom=0.98, page=n)])
             for n in range(1, 6)]

    assert drop_running_lines(pages) == 5  # the footers only
    assert [p.paragraphs[0].text for p in pages] == [f"{n}. Règle numéro {n}" for n in range(1, 6)]


def test_rule_numbers_set_in_a_column_of_their_own_join_their_rule(tmp_path):
    pdf = _pdf()
    pdf.add_page()
    rules = [("4.1", "Le joueur actif pioche deux cartes."), ("4.2", "Il peut ensuite jouer une carte Action."), ("4.3", "Enfin il défausse jusqu'à sept cartes.")]
    for i, (number, _) in enumerate(rules):
        pdf.text(50, 100 + i * 40, number)
    for i, (_, text) in enumerate(rules):
        pdf.text(110, 100 + i * 40, text)
    pdf.output(str(tmp_path / "rules.pdf"))

    [page] = list(read_pages(tmp_path / "rules.pdf"))

    texts = [p.text for p in page.paragraphs]
    assert "4.1 Le joueur actif pioche deux cartes." in texts
    assert "4.3 Enfin il défausse jusqu'à sept cartes." in texts


def test_ligatures_and_soft_hyphens_are_repaired(tmp_path):
    pdf = _pdf()
    pdf.add_page()
    pdf.text(50, 100, "Le premier joueur ﬁnit son tour et prend le drapeau ﬂottant, re\u00ad")
    pdf.text(50, 113, "capture la tour, puis pioche Twenty\u00adfour cartes.")
    pdf.output(str(tmp_path / "ligatures.pdf"))

    [page] = list(read_pages(tmp_path / "ligatures.pdf"))

    assert "finit son tour et prend le drapeau flottant, recapture la tour" in page.text
    assert "Twenty-four cartes" in page.text


def test_a_tab_set_sideways_along_the_page_edge_leaves_the_text(tmp_path):
    """d0x3d's side tabs came out as « ] s n o i t c a [ », one letter a line, in its passages."""
    pdf = _pdf()
    pdf.add_page()
    pdf.set_xy(50, 60)
    pdf.multi_cell(400, 14, "Each player takes four actions on their turn, then draws two cards.")
    with pdf.rotation(90, x=560, y=400):
        pdf.text(560, 400, "[ actions ]")
    path = tmp_path / "tab.pdf"
    pdf.output(str(path))

    [page] = read_pages(path)

    assert "Each player takes four actions on their turn" in page.text
    assert "]" not in page.text and "s n o" not in page.text


def test_a_page_turned_with_rotate_keeps_all_its_text(tmp_path):
    """Its text is all sideways for pdfminer: none of it is a tab to leave out."""
    pdf = _pdf()
    pdf.add_page()
    pdf.set_xy(50, 60)
    pdf.multi_cell(400, 14, "Each player takes four actions on their turn, then draws two cards.")
    path = tmp_path / "turned.pdf"
    pdf.output(str(path))
    path.write_bytes(re.sub(rb"/Type /Page\b(?!s)", b"/Type /Page /Rotate 90", path.read_bytes()))  # a viewer turns it

    [page] = read_pages(path)

    assert sum(char.isalpha() for char in page.text) >= 50
