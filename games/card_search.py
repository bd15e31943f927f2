"""Cards and tournament decklists for the ask flow's synergy, meta and deckbuilding intents:
synergy expansion over `cards_<slug>` (structural filters + query variants), and for `meta`
the tournament decklists of the asked format in `meta_<slug>`."""

from __future__ import annotations

from rag.store import Hit
from rag.synergy import decompose, meta_search, synergy_search

from .card_indexing import card_collection, meta_collection
from .deck_requests import hero_names, set_names
from .models import Game

META_LIMIT = 5
META_TYPES = ("tournament_deck", "card_ratings")  # games.meta_sync


def meta_hits(store, embedder, game: Game, question: str, format: str, limit: int = META_LIMIT) -> list[Hit]:
    """Meta documents close to the question (tournament decklists, 17Lands ratings: the
    reference's meta retrieval), of the asked format when one is named."""
    return meta_search(store, embedder, meta_collection(game), question, format, limit, meta_types=META_TYPES)


def card_game_hits(store, embedder, llm, game: Game, question: str, intent: str, limit: int = 8) -> list[Hit]:
    """[CARD] hits by synergy expansion, then (intent `meta`) [META] decklists of the format."""
    decomposition = decompose(question, llm, game_kind=game.card_game, set_names=set_names(game), heroes=hero_names(game))
    hits = synergy_search(store, embedder, card_collection(game), question, decomposition, game.card_game, limit=limit)
    if intent == "meta":
        hits = meta_hits(store, embedder, game, question, decomposition.format) + hits
    return hits
