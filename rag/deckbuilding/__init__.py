"""Deckbuilding mode: complete, legal decklists for Magic, Flesh and Blood and Riftbound.

Plain Python; the Django edge that gathers what `build_deck` needs is
`games.deck_requests.ask_deckbuilding` (called by the ask flow).
"""

from .build import DeckRequest, DeckResult, DeckTools, build_deck
from .parse_validate import parse_deck_response, validate_deck
from .spec import DeckSpec, default_spec

__all__ = ["DeckRequest", "DeckResult", "DeckSpec", "DeckTools", "build_deck", "default_spec",
           "parse_deck_response", "validate_deck"]  # fmt: skip
