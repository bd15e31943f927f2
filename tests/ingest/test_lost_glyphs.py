"""A font that maps its ligature glyphs to nothing (U+0000, as the PhoneImpact short-game sheet
of the evaluation corpus does) loses « fi » and « fl » from its words: each is given back the
ligature that makes a known word, and no NUL reaches the database, which PostgreSQL refuses."""

import pytest

from games.models import Chunk
from ingest.stages import read_child
from ingest.stages.lost_glyphs import repair_text
from tests.ingest.pdfs import rulebook_pdf
from tests.ingest.running import ingest_inline

RULES = [
    ("1. Fin de la partie", ["Pour simplifier la fin de partie, chaque joueur pioche une carte et la défausse.",
                             "Le jeu reste fluide : le flux des tours ne s'arrête jamais."]),
    ("2. Score", ["Le joueur qui a le plus de points gagne la partie, à la fin du dernier tour."]),
]


def test_each_lost_glyph_gets_the_ligature_that_makes_a_known_word():
    words = {"simplifier", "fluidifier", "fin", "flux"}

    assert repair_text("Simpli\x00er la \x00n, \x00uidi\x00er le \x00ux.", words) == "Simplifier la fin, fluidifier le flux."
    assert repair_text("un mot in\x00onnu\x07 ici", words) == "un mot infionnu ici"  # unknown: « fi », the commonest


@pytest.mark.django_db(transaction=True)
def test_a_booklet_whose_font_lost_its_ligatures_is_stored_with_its_words(tmp_path, monkeypatch):
    real = read_child.read_pages

    def lossy(pdf, memory_mb, **options):  # the text as pdfminer reads such a font
        for page in real(pdf, memory_mb, **options):
            for paragraph in page.paragraphs:
                paragraph.text = paragraph.text.replace("fi", "\x00").replace("fl", "\x00")
            yield page

    monkeypatch.setattr(read_child, "read_pages", lossy)

    job = ingest_inline(rulebook_pdf(tmp_path / "fin.pdf", RULES), new_game_name="Fin", language="fr")

    text = " ".join(Chunk.objects.filter(game=job.game).values_list("text", flat=True))
    assert "\x00" not in text
    assert "simplifier la fin de partie" in text and "fluide" in text and "flux" in text
    assert job.stats["lost_glyphs_repaired"] >= 4
