"""Bring Qdrant collections up to date with the chunk rows (the source of truth).

Writers (ingestion, forum sync, card import) only touch rows and call `mark_changed`.
The process that owns the vector store calls `sync_if_changed` before searching: it
upserts rows not yet indexed and drops points whose rows are gone. With a Qdrant server
the writer may sync right away itself.
"""

import logging
import threading

from django.db import transaction

from rag.embeddings import passage_text
from rag.sparse import SparseVector, document_vector
from rag.store import Point, VectorStore

from .card_indexing import card_collection, card_collections, mark_card_rows_unindexed, meta_collection, row_source_for
from .index_state import mark_changed
from .models import Chunk, Game, IndexState

log = logging.getLogger(__name__)

_synced_versions: dict[str, int] = {}
_sync_lock = threading.Lock()


def chunk_payload(chunk: Chunk) -> dict:
    """What a search hit carries, so answering needs no database round trip."""
    return {
        **chunk.payload,
        "chunk_id": str(chunk.id),
        "game_id": str(chunk.game_id),
        "extension_id": str(chunk.extension_id) if chunk.extension_id else None,
        "collection": chunk.collection,
        "text": chunk.text,
        "contextual_text": chunk.context,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "page_offsets": chunk.page_offsets,
        "hierarchy_path": chunk.hierarchy_path,
        "hierarchy_level": chunk.hierarchy_level,
        "is_forum_chunk": chunk.is_forum,
        "is_extension": chunk.extension_id is not None,
        "ordinal": chunk.ordinal,
    }


def _row_source(collection: str):
    """(rows queryset, payload function) feeding `collection`: chunks, or the card catalog's
    `cards_<slug>` / `meta_<slug>` rows (games.card_indexing)."""
    return row_source_for(collection) or (Chunk.objects.filter(collection=collection), chunk_payload)


def sync_collection(store: VectorStore, collection: str, batch_size: int = 256) -> dict:
    """Make `collection` in `store` match its rows; returns counts for logs and health."""
    source_rows, payload = _row_source(collection)
    rows = source_rows.filter(dense__isnull=False)
    model = rows.model
    wanted = {str(pk) for pk in rows.values_list("id", flat=True)}
    stale = store.point_ids(collection) - wanted
    store.delete(collection, stale)
    pending = rows.filter(indexed=False)
    if store.count(collection) < len(wanted) - pending.count():
        pending = rows  # the store lost points (folder deleted, new server): rewrite them all
    ids = list(pending.values_list("id", flat=True))
    written = 0
    for start in range(0, len(ids), batch_size):
        batch = list(model.objects.filter(pk__in=ids[start : start + batch_size]))
        store.ensure_collection(collection, len(batch[0].dense_vector))
        written += store.upsert(
            collection,
            (Point(str(c.pk), c.dense_vector, SparseVector.from_dict(c.sparse), payload(c)) for c in batch),
        )
        model.objects.filter(pk__in=[c.pk for c in batch]).update(indexed=True)
    if written or stale:
        log.info("index %s: %d written, %d deleted, %d total", collection, written, len(stale), len(wanted))
    return {"collection": collection, "written": written, "deleted": len(stale), "total": len(wanted)}


def sync_card_collections(store: VectorStore, game: Game) -> list[dict]:
    """The card game's `cards_<slug>` and `meta_<slug>` collections, synced now."""
    return [sync_collection(store, card_collection(game)), sync_collection(store, meta_collection(game))]


def sync_if_changed(store: VectorStore, collections: list[str] | None = None) -> list[dict]:
    """Sync the collections whose version moved since this process last synced them."""
    states = IndexState.objects.all()
    if collections is not None:
        states = states.filter(collection__in=collections)
    reports = []
    with _sync_lock:
        for collection, version in states.values_list("collection", "version"):
            if _synced_versions.get(collection) == version:
                continue
            reports.append(sync_collection(store, collection))
            _synced_versions[collection] = version
    return reports


def forget_synced_versions() -> None:
    with _sync_lock:
        _synced_versions.clear()


def rebuild_all(store: VectorStore) -> list[dict]:
    """`manage.py reindex`: drop every collection and write it again from the rows."""
    with transaction.atomic():
        Chunk.objects.update(indexed=False)
        mark_card_rows_unindexed()
    forget_synced_versions()
    # order_by(): the model's ordering (collection, ordinal) would defeat distinct() and
    # rebuild each collection once per chunk.
    collections = list(Chunk.objects.order_by().values_list("collection", flat=True).distinct()) + card_collections()
    for name in store.collections():
        if name not in collections:
            store.drop(name)
    reports = []
    for collection in collections:
        store.drop(collection)
        reports.append(sync_collection(store, collection))
        mark_changed(collection)
    return reports


def reembed_all(embedder, batch_size: int = 32, progress=None) -> int:
    """Embed every chunk again (after an embedder change); rows keep everything else."""
    ids = list(Chunk.objects.values_list("id", flat=True))
    for start in range(0, len(ids), batch_size):
        batch = list(Chunk.objects.filter(pk__in=ids[start : start + batch_size]))
        texts = [passage_text(c.text, c.context) for c in batch]
        vectors = embedder.embed_passages(texts)
        for chunk, vector, text in zip(batch, vectors, texts):
            chunk.dense_vector = vector
            chunk.embedder = embedder.name
            chunk.sparse = document_vector(text).as_dict()
            chunk.indexed = False
        Chunk.objects.bulk_update(batch, ["dense", "embedder", "sparse", "indexed"])
        if progress:
            progress(f"{min(start + batch_size, len(ids))}/{len(ids)}")
    return len(ids)
