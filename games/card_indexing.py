"""Card and tournament-decklist rows as vector points.

Each card game has two collections beside its rules: `cards_<slug>` (one point per card,
retrieval tags it `[CARD]`) and `meta_<slug>` (one point per tournament decklist,
`meta_type='tournament_deck'`, tagged `[META]`). Rows are the truth, like chunks: writers
embed rows and call `mark_changed`; the store owner syncs (games.indexing).
"""

import hashlib

from django.db import transaction

from rag.cards import card_embedding_text, card_search_text, render_decklist
from rag.sparse import document_vector

from .index_state import mark_changed
from .models import Card, Decklist, Game

CARDS_PREFIX = "cards_"
META_PREFIX = "meta_"


def card_collection(game: Game) -> str:
    return f"{CARDS_PREFIX}{game.slug}"


def meta_collection(game: Game) -> str:
    return f"{META_PREFIX}{game.slug}"


def card_payload(card: Card) -> dict:
    """What a card hit carries; also the plain card dict `rag.cards` renders."""
    attributes = {k: v for k, v in (card.attributes or {}).items() if not k.startswith("_")}
    payload = {
        "kind": "card",
        "tag": "[CARD]",
        "card_id": str(card.id),
        "chunk_id": str(card.id),
        "game_id": str(card.game_id),
        "card_name": card.name,
        "name": card.name,  # what the chat page reads from a mentioned card
        "card_name_fr": card.name_fr,
        "cost": card.cost,
        "type": card.type_line,
        "card_types": attributes.get("types", []),
        "oracle_text": card.text,
        "oracle_text_fr": card.text_fr,
        "colors": card.colors,
        "set": card.set_code,
        "set_name": card.set_name,
        "rarity": card.rarity,
        "attributes": attributes,
        "card_mtg_legal_formats": card.legal_formats,
        "card_mtg_color_identity": card.color_identity,
        "card_legal_heroes": attributes.get("legal_heroes", []),
        "card_domains": attributes.get("domains", []),
        "is_extension": False,
        "is_forum_chunk": False,
        "page_start": 0,
        "page_end": 0,
    }
    payload["text"] = card_embedding_text(payload)
    payload["contextual_text"] = f"[CARD] {card.name}"
    return payload


def decklist_payload(deck: Decklist) -> dict:
    payload = {
        "kind": "meta",
        "tag": "[META]",
        "meta_type": deck.meta_type or "tournament_deck",
        "meta_format": deck.format.lower(),
        "source_url": deck.source_url,
        "deck_id": str(deck.id),
        "chunk_id": str(deck.id),
        "game_id": str(deck.game_id),
        "deck_name": deck.name,
        "date": deck.played_on.isoformat() if deck.played_on else "",
        "source": deck.source,
        "sections": deck.sections,
        "is_extension": False,
        "is_forum_chunk": False,
        "page_start": 0,
        "page_end": 0,
    }
    payload["text"] = deck.body or render_decklist(payload)
    payload["contextual_text"] = f"[META] {deck.name} ({deck.format})"
    return payload


def row_source_for(collection: str):
    """The rows and payload function of a card-catalog collection, else None (chunks)."""
    if collection.startswith(CARDS_PREFIX):
        return Card.objects.filter(game__slug=collection[len(CARDS_PREFIX) :]), card_payload
    if collection.startswith(META_PREFIX):
        return Decklist.objects.filter(game__slug=collection[len(META_PREFIX) :]), decklist_payload
    return None


def card_collections() -> list[str]:
    games = Game.objects.filter(cards__isnull=False).distinct()
    metas = Game.objects.filter(decklists__isnull=False).distinct()
    return [card_collection(g) for g in games] + [meta_collection(g) for g in metas]


def mark_card_rows_unindexed() -> None:
    Card.objects.update(indexed=False)
    Decklist.objects.update(indexed=False)


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def embed_pending_cards(game: Game, embedder, batch_size: int = 64, progress=None) -> int:
    """Embed (dense + sparse) the cards of `game` that have no vector yet; returns how many.

    Batches are sorted by text length so that padding inside a batch stays small."""
    pending = list(Card.objects.filter(game=game, dense__isnull=True).only("id"))
    rows = sorted(Card.objects.filter(pk__in=[c.pk for c in pending]), key=lambda c: len(c.text))
    done = 0
    for start in range(0, len(rows), batch_size):
        batch = rows[start : start + batch_size]
        payloads = [card_payload(card) for card in batch]
        vectors = embedder.embed_passages([p["text"] for p in payloads])
        for card, payload, vector in zip(batch, payloads, vectors):
            card.dense_vector = vector
            card.sparse = document_vector(card_search_text(payload)).as_dict()
            card.embedder = embedder.name
            card.indexed = False
        with transaction.atomic():
            Card.objects.bulk_update(batch, ["dense", "sparse", "embedder", "indexed"])
            mark_changed(card_collection(game))
        done += len(batch)
        if progress:
            progress(done, len(rows))
    return done


def embed_pending_decklists(game: Game, embedder) -> int:
    decks = list(Decklist.objects.filter(game=game, dense__isnull=True))
    if not decks:
        return 0
    payloads = [decklist_payload(deck) for deck in decks]
    vectors = embedder.embed_passages([p["text"] for p in payloads])
    for deck, payload, vector in zip(decks, payloads, vectors):
        deck.dense_vector = vector
        deck.sparse = document_vector(payload["text"]).as_dict()
        deck.embedder = embedder.name
        deck.indexed = False
    with transaction.atomic():
        Decklist.objects.bulk_update(decks, ["dense", "sparse", "embedder", "indexed"])
        mark_changed(meta_collection(game))
    return len(decks)


def reembed_card_rows(embedder, progress=None) -> int:
    """After an embedder change (`reindex --reembed`): every card and decklist embedded again."""
    Card.objects.update(dense=None, indexed=False)
    Decklist.objects.update(dense=None, indexed=False)
    count = 0
    for game in Game.objects.filter(card_game__gt=""):
        count += embed_pending_cards(game, embedder, progress=progress)
        count += embed_pending_decklists(game, embedder)
    return count
