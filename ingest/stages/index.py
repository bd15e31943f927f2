"""Step 8: chunks become rows (the source of truth), then the index follows.

New rows are written first; then, in one transaction, the booklet's previous rows are
deleted and the collection is marked changed, so the game always has an index. The
worker never opens a local Qdrant folder: the web process syncs from the rows
(docs/architecture.md, decisions 1 and 2); with a Qdrant server the worker syncs right away.
"""

from __future__ import annotations

import logging

from django.db import transaction

from games.index_state import mark_changed
from games.indexing import sync_collection
from games.models import Booklet, Chunk, OcrPageWords

from rag.payload import ChunkConflict, ChunkPayload

from .chunk import ChunkDraft

log = logging.getLogger(__name__)

BULK_BATCH = 200


def chunk_payload(booklet: Booklet, draft: ChunkDraft, conflict: ChunkConflict | None) -> ChunkPayload:
    """What a chunk row's payload holds: its booklet, what the chunkers found, its conflict."""
    return ChunkPayload(
        game_name=booklet.game.name,
        game_slug=booklet.game.slug,
        booklet_name=booklet.name,
        booklet_slug=booklet.slug,
        booklet_kind=booklet.kind,
        language=booklet.language,
        chunker=draft.chunker,
        rule=draft.rule,
        rule_keywords=draft.rule_keywords or None,
        page_furniture=draft.page_furniture or None,
        conflict=conflict,
    )


def build_rows(job, booklet: Booklet, drafts: list[ChunkDraft], dense, sparse, conflicts: list, embedder_name: str):
    """`conflicts`: each draft's `ChunkConflict` or None (ingest/stages/conflicts.py)."""
    rows = []
    for ordinal, draft in enumerate(drafts):
        row = Chunk(
            game=booklet.game,
            extension=booklet.extension,
            collection=booklet.collection,
            ingest_job=job,
            ordinal=ordinal,
            text=draft.text,
            context=draft.context,
            page_start=draft.page_start,
            page_end=draft.page_end,
            page_offsets=draft.page_offsets,
            hierarchy_path=draft.hierarchy_path[:500],
            hierarchy_level=draft.hierarchy_level,
            payload=chunk_payload(booklet, draft, conflicts[ordinal]).to_dict(),
            embedder=embedder_name,
            sparse=sparse[ordinal].as_dict(),
            indexed=False,
        )
        row.dense_vector = dense[ordinal]
        rows.append(row)
    return rows


def replace_booklet_rows(job, booklet: Booklet, rows: list[Chunk], also=lambda: None) -> int:
    """Write the new rows and swap them for the old ones in one transaction (with whatever
    `also` changes: the OCR boxes, a replacement's PDF); returns rows removed. All or nothing:
    a job's rows exist only once swapped in, so a failed or cancelled run (and a re-run of a
    job whose earlier attempt had swapped) never has rows of its own to remove."""
    with transaction.atomic():
        Chunk.objects.filter(ingest_job=job).delete()  # an earlier attempt's rows, swapped in then
        Chunk.objects.bulk_create(rows, batch_size=BULK_BATCH)
        # Forum chunks share the base collection but not the PDF: the BGG sync owns them.
        removed, _ = Chunk.objects.of_booklet(booklet).exclude(ingest_job=job).exclude(is_forum=True).delete()
        also()
        mark_changed(booklet.collection)
    return removed


def replace_ocr_words(booklet: Booklet, readings: dict) -> int:
    """The booklet's OCR word boxes become those of this ingestion (`{page: OcrPage}`; none
    when no page needed OCR, so a new upload with a text layer leaves no stale boxes)."""
    rows = [
        OcrPageWords(game=booklet.game, extension=booklet.extension, page=page, width=r.width, height=r.height, words=r.words)
        for page, r in sorted(readings.items())
        if r.words and r.width and r.height
    ]
    with transaction.atomic():
        OcrPageWords.objects.of_booklet(booklet).delete()
        OcrPageWords.objects.bulk_create(rows, batch_size=BULK_BATCH)
    return len(rows)


def sync_now(collection: str) -> dict | None:
    """Sync from this process when it may write the index (a server, or a command that got
    the local folder); returns None when the web process will do it."""
    from rag.store import VectorStoreError
    from runtime import components

    try:
        return sync_collection(components.vector_store(), collection)
    except VectorStoreError as exc:
        log.info("index %s left to the process that owns the local store: %s", collection, exc)
        return None
