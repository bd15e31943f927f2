"""Deckbuilding mode: complete, legal decklists for Magic, Flesh and Blood and Riftbound.

Plain Python; the Django edge is `games.deckbuilding.ask_deckbuilding` (the ask flow's hook).
"""

from .build import DeckRequest, DeckResult, DeckTools, build_deck
from .parse_validate import parse_deck_response, validate_deck
from .spec import DeckSpec, default_spec

__all__ = ["DeckRequest", "DeckResult", "DeckSpec", "DeckTools", "build_deck", "default_spec",
           "parse_deck_response", "validate_deck", "ask_deckbuilding"]  # fmt: skip


def ask_deckbuilding(**kwargs):
    """The ask flow's entry (questions.services): delegates to the Django edge, which gathers
    the store, the embedder, the LLM and the catalog for `build_deck`."""
    from games.deckbuilding import ask_deckbuilding as ask

    return ask(**kwargs)
