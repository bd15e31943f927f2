"""The offline builder (no LLM) on hand-made pools: what it cannot fill stays missing."""

from rag.deckbuilding.offline import build_offline_deck
from rag.deckbuilding.parse_validate import validate_deck
from rag.deckbuilding.spec import default_spec


def test_an_empty_pool_gives_no_deck_of_basic_lands_judged_valid():
    spec = default_spec("mtg", colors=["U", "G"])

    deck = build_offline_deck(spec, {}, [])
    verdict = validate_deck(deck, spec)

    assert not verdict.valid
    assert "Deck principal : 24 cartes au lieu de 60." in verdict.issues  # the lands role only
    assert "Sideboard : 0 cartes au lieu de 15." in verdict.issues


def test_a_card_restricted_in_the_format_gets_one_copy():
    lotus = {"card_name": "Black Lotus", "card_types": ["artifact"], "type": "Artifact", "card_mtg_color_identity": [],
             "attributes": {"restricted_in": ["vintage"]}}  # fmt: skip
    ritual = {"card_name": "Dark Ritual", "card_types": ["instant"], "type": "Instant", "card_mtg_color_identity": ["B"],
              "attributes": {}}  # fmt: skip
    vintage = build_offline_deck(default_spec("mtg", format="vintage"), {"spells": [lotus, ritual]}, [lotus])
    legacy = build_offline_deck(default_spec("mtg", format="legacy"), {"spells": [lotus, ritual]}, [lotus])

    assert vintage.copies()["Black Lotus"] == 1  # main deck and sideboard together
    assert vintage.copies()["Dark Ritual"] == 4
    assert legacy.copies()["Black Lotus"] == 4
