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
