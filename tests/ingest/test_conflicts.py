"""Extensions: each chunk is compared with the base booklet; candidates above the
threshold are recorded in its payload (no type without an LLM)."""

import pytest

from games.models import Chunk
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf
from tests.ingest.running import ingest_inline

pytestmark = pytest.mark.django_db

EXTENSION_RULES = [
    (
        "Tempête : nouvelle règle Boost",
        [
            "Une carte Boost se joue après avoir révélé ses cartes. Elle ajoute la valeur de deux cartes piochées "
            "au déplacement. On peut désormais jouer une carte Boost après avoir dépassé la limite de vitesse d'un virage.",
        ],
    ),
    (
        "Météo",
        ["Au début de la course, tirez une tuile météo. La pluie réduit l'adhérence : chaque virage coûte une surchauffe de plus."],
    ),
]


def test_extension_chunk_carries_the_base_rule_it_may_change(tmp_path, settings):
    settings.CONFLICT_SIMILARITY_THRESHOLD = 0.85
    base = ingest_inline(rulebook_pdf(tmp_path / "base.pdf", LOREM_RULES), new_game_name="Heat")
    extension = ingest_inline(
        rulebook_pdf(tmp_path / "ext.pdf", EXTENSION_RULES, per_page=1), game=base.game, kind="extension", name="Tempête"
    )

    boost = Chunk.objects.get(ingest_job=extension, text__contains="deux cartes piochées")
    base_boost = Chunk.objects.get(ingest_job=base, text__contains="carte Boost")
    payload = boost.payload
    assert payload["conflict_candidates"][0]["base_chunk_id"] == str(base_boost.pk)
    assert payload["conflict_candidates"][0]["similarity"] >= 0.85
    assert payload["conflict_base_chunk_id"] == str(base_boost.pk)
    assert payload["conflict_base_page"] == base_boost.page_start
    assert payload["conflict_type"] is None and payload["conflict_summary"] == ""
    assert payload["booklet_kind"] == "extension"
    assert extension.stats["conflict_candidates"] >= 1


def test_chunks_below_the_threshold_carry_no_conflict(tmp_path, settings):
    settings.CONFLICT_SIMILARITY_THRESHOLD = 0.99
    base = ingest_inline(rulebook_pdf(tmp_path / "base.pdf", LOREM_RULES), new_game_name="Heat")
    extension = ingest_inline(
        rulebook_pdf(tmp_path / "ext.pdf", EXTENSION_RULES, per_page=1), game=base.game, kind="extension", name="Tempête"
    )

    assert not any("conflict_candidates" in c.payload for c in Chunk.objects.filter(ingest_job=extension))
