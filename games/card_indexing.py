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


def _card_texts(card: Card) -> tuple[str, str]:
    payload = card_payload(card)
    return payload["text"], card_search_text(payload)


def _decklist_texts(deck: Decklist) -> tuple[str, str]:
    text = decklist_payload(deck)["text"]
    return text, text


def _embed_rows(rows, texts, embedder, collection: str, batch_size: int = 64, progress=None) -> int:
    """Embed `rows` (dense vector of their passage text, sparse of their search text), saving
    each batch as soon as its vectors are back: an embedder failing later keeps the batches
    done, and a row keeps its old vector until its new one is written.

    Batches are sorted by text length so that padding inside a batch stays small."""
    items = sorted(((row, *texts(row)) for row in rows), key=lambda item: len(item[1]))
    done = 0
    for start in range(0, len(items), batch_size):
        batch = items[start : start + batch_size]
        vectors = embedder.embed_passages([passage for _, passage, _ in batch])
        for (row, _, search_text), vector in zip(batch, vectors):
            row.dense_vector = vector
            row.sparse = document_vector(search_text).as_dict()
            row.embedder = embedder.name
            row.indexed = False
        saved = [row for row, _, _ in batch]
        with transaction.atomic():
            type(saved[0]).objects.bulk_update(saved, ["dense", "sparse", "embedder", "indexed"])
            mark_changed(collection)
        done += len(batch)
        if progress:
            progress(done, len(items))
    return done


def embed_pending_cards(game: Game, embedder, batch_size: int = 64, progress=None) -> int:
    """Embed the cards of `game` that have no vector yet; returns how many."""
    rows = Card.objects.filter(game=game, dense__isnull=True)
    return _embed_rows(rows, _card_texts, embedder, card_collection(game), batch_size, progress)


def embed_pending_decklists(game: Game, embedder) -> int:
    rows = Decklist.objects.filter(game=game, dense__isnull=True)
    return _embed_rows(rows, _decklist_texts, embedder, meta_collection(game))


def reembed_card_rows(embedder, progress=None) -> int:
    """After an embedder change (`reindex --reembed`): every card and decklist embedded again,
    of every game that has some (a game no longer flagged as a card game keeps its lists).

    Vectors are not cleared first: if the embedder fails half-way, the rows not reached yet
    keep their old vectors and their points, instead of leaving search (and the index) until
    the next run."""
    count = 0
    for game in Game.objects.filter(cards__isnull=False).distinct():
        rows = Card.objects.filter(game=game).defer("dense", "sparse")
        count += _embed_rows(rows, _card_texts, embedder, card_collection(game), progress=progress)
    for game in Game.objects.filter(decklists__isnull=False).distinct():
        rows = Decklist.objects.filter(game=game).defer("dense", "sparse")
        count += _embed_rows(rows, _decklist_texts, embedder, meta_collection(game))
    return count
