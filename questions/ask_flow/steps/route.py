"""Route by intent: the passages the answer gets. Synergy, meta and deckbuilding questions
leave the forum out and, for a card game, add the cards and tournament decks."""

from __future__ import annotations

from django.conf import settings

from games.card_indexing import card_collection, meta_collection
from games.card_search import card_game_hits
from games.indexing import sync_if_changed
from runtime import components
from rag.retrieve import FORUM_FREE_INTENTS, BookletRef, Retrieval, RetrievedChunk

from ..context import AskContext


def route_by_intent(ctx: AskContext, intent: str, retrieval: Retrieval, store, llm) -> list[RetrievedChunk]:
    """The passages the answer gets: the forum left out where the intent says so (the one
    place it is: retrieval runs before the intent is known), cards and decks added."""
    chunks = retrieval.chunks
    if intent in FORUM_FREE_INTENTS:
        chunks = [c for c in chunks if not c.is_forum]
    chunks = chunks[: settings.ASK_TOP_K]
    if intent in FORUM_FREE_INTENTS and ctx.game.card_game:
        chunks = chunks + card_chunks(ctx, intent, store, llm)
    return chunks


def card_chunks(ctx: AskContext, intent: str, store, llm) -> list[RetrievedChunk]:
    """Cards and tournament decks of a card game (synergy expansion; meta lists of the asked
    format), as passages."""
    game = ctx.game
    refs = [
        BookletRef(collection=card_collection(game), slug=card_collection(game), name="Cartes", kind="cards"),
        BookletRef(collection=meta_collection(game), slug=meta_collection(game), name="Méta", kind="meta"),
    ]
    sync_if_changed(store, [r.collection for r in refs])
    by_collection = {r.collection: r for r in refs}
    hits = card_game_hits(store, components.embedder(), llm, game, ctx.text, intent, settings.ASK_TOP_K)
    return [
        RetrievedChunk(id=h.id, booklet=by_collection[h.collection], payload=h.payload, score=h.score,
                       fusion_score=h.score)
        for h in hits
    ]  # fmt: skip
