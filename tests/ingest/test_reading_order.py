"""Columns come out one after the other, never interleaved line by line."""

from ingest.stages.read import read_pages
from tests.ingest.pdfs import two_column_pdf

LEFT = [
    "Gauche un : le joueur actif choisit une action parmi les trois disponibles sur son plateau.",
    "Gauche deux : il paie le coût indiqué avec ses ressources puis applique l'effet de l'action.",
]
RIGHT = [
    "Droite un : les adversaires peuvent réagir une fois par tour avec une carte de réaction.",
    "Droite deux : une réaction jouée est défaussée et ne revient pas dans la main du joueur.",
]


def test_two_column_page_reads_left_column_then_right_column(tmp_path):
    # Paragraphs are the same height in both columns, so their gaps line up: a naive
    # top-to-bottom order would read "Gauche un, Droite un, Gauche deux, Droite deux".
    pdf = two_column_pdf(tmp_path / "cols.pdf", "Les actions", [p * 2 for p in LEFT], [p * 2 for p in RIGHT])

    [page] = list(read_pages(pdf))

    starts = [paragraph.text[:12] for paragraph in page.paragraphs]
    assert starts == ["Les actions", "Gauche un : ", "Gauche deux ", "Droite un : ", "Droite deux "]
    assert "Gauche un : le joueur actif choisit une action" in page.text


def test_lines_of_a_paragraph_are_joined_into_one_sentence(tmp_path):
    pdf = two_column_pdf(tmp_path / "cols.pdf", "Titre", [LEFT[0] * 2], [RIGHT[0] * 2])

    [page] = list(read_pages(pdf))

    assert "une action parmi les trois disponibles sur son plateau." in page.paragraphs[1].text
    assert "\n" not in page.paragraphs[1].text
