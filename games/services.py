"""Changes to the catalogue made by the API and the admin: games created, renamed and deleted;
booklets found by id, deleted, their language changed.

Deleting takes everything a booklet left behind: its chunk rows, its points in the vector
store, its PDFs and page images, and — through `booklets_busy` and `booklet_deleting`, which
the ingest app answers — its ingestion jobs and caches. A deletion first asks whether any of
the booklets is being read (then nothing changes: 409), and changes its rows in one
transaction. Rows are the truth (docs/architecture.md, decision 1): a change marks the
collection as changed and, when this process may write the index, syncs it now, so a deleted
booklet leaves retrieval at once."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber
from django.dispatch import Signal
from django.utils.text import slugify
from django.utils.translation import ngettext

from .index_state import mark_changed
from .models import Booklet, Chunk, Decklist, Extension, Game
from .terms import learn_booklet_terms

log = logging.getLogger(__name__)

class BookletBusy(Exception):
    """The booklets cannot go now (an ingestion of one is running): the API answers 409."""


# Sent with `booklets=` before anything is deleted; each receiver returns what keeps them from
# going now (a running ingestion, named so it can be cancelled), an empty list when nothing.
booklets_busy = Signal()
# Sent with `booklet=` inside the transaction that deletes the booklet's rows; each receiver
# removes what it keeps for the booklet (its jobs) and returns the files it kept for it (a list
# of paths), removed with the PDF once the rows are gone. It may still raise BookletBusy.
booklet_deleting = Signal()


def unique_slug(text: str) -> str:
    base = slugify(text)[:70] or "livret"
    slug, n = base, 2
    # Collections are named after slugs: a game and a booklet never share one.
    while Game.objects.filter(slug=slug).exists() or Extension.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def find_booklet(booklet_id) -> Booklet | None:
    """A booklet by its id: an Extension's, or a Game's for its base booklet."""
    extension = Extension.objects.select_related("game").filter(pk=booklet_id).first()
    if extension is not None:
        return extension.booklet
    game = Game.objects.filter(pk=booklet_id).first()
    return game.base_booklet if game is not None else None


def create_game(*, name: str, language: str = "fr", bgg_id: int | None = None, description: str = "") -> Game:
    return Game.objects.create(name=name, slug=unique_slug(name), language=language, bgg_id=bgg_id, description=description)


def rename_game(game: Game, name: str) -> Game:
    """The new name, in the game's rows and in what its chunks carry to answers."""
    with transaction.atomic():
        game.name = name
        game.save(update_fields=["name", "updated_at"])
        for booklet in game.booklets():
            _update_payloads(booklet, game_name=name, booklet_name=booklet.name)
    _refresh_index([b.collection for b in game.booklets()])
    return game


def rename_booklet(booklet: Booklet, name: str) -> Booklet:
    """The name answers cite: an Extension's name, or the base booklet's (`booklet_name`)."""
    owner = booklet.owner
    with transaction.atomic():
        if booklet.is_extension:
            owner.name = name
            owner.save(update_fields=["name", "updated_at"])
        else:
            owner.booklet_name = name
            owner.save(update_fields=["booklet_name", "updated_at"])
        _update_payloads(booklet, booklet_name=name)
    _refresh_index([booklet.collection])
    return find_booklet(owner.pk)


def set_booklet_language(booklet: Booklet, language: str) -> Booklet:
    """Declare the booklet's language; its chunks carry it to the index, and the game's
    French ↔ English terms learnt from translated booklets are learnt again."""
    owner = booklet.owner
    with transaction.atomic():
        owner.language = language
        owner.save(update_fields=["language", "updated_at"])
        _update_payloads(booklet, language=language)
    learn_booklet_terms(booklet.game)
    _refresh_index([booklet.collection])
    return find_booklet(owner.pk)


def delete_booklet(booklet: Booklet) -> None:
    """The booklet and everything it left behind. A game's base booklet leaves the game in
    place without rules (its forum passages stay: the BGG sync owns them)."""
    refuse_if_busy([booklet])
    with transaction.atomic():
        files = _files_of(booklet)
        if booklet.is_extension:
            booklet.extension.delete()
        else:
            booklet.chunks().exclude(is_forum=True).delete()
            game = booklet.game
            game.pdf, game.pdf_pages = "", None
            game.save(update_fields=["pdf", "pdf_pages", "updated_at"])
        mark_changed(booklet.collection)
        if booklet.is_extension:
            learn_booklet_terms(booklet.game)
    _drop_or_sync(booklet.collection, drop=booklet.is_extension)
    remove_files(files)


def delete_game(game: Game) -> None:
    """The game with its booklets, chunks, cards, vector collections, PDFs and page images;
    nothing changes when one of its booklets is being read."""
    from .card_indexing import card_collection, meta_collection

    booklets = game.booklets()
    refuse_if_busy(booklets)
    collections = [b.collection for b in booklets] + [card_collection(game), meta_collection(game)]
    with transaction.atomic():
        files = [path for booklet in booklets for path in _files_of(booklet)]
        game.delete()
        for collection in collections:
            mark_changed(collection)
    for collection in collections:
        _drop_or_sync(collection, drop=True)
    remove_files(files)


def decklist_edited(deck: Decklist, former_game_id=None) -> str:
    """A list edited in the admin: its point carried the old text and vector, and the index
    owner skips a collection whose version did not move. So the row loses its vector and is
    embedded again (the way `import_decklists` does), and its collection is marked. Returns
    the embedding error, if any, for the admin to show: the list stays out of the index (no
    vector) until it is saved again."""
    from rag.embeddings import EmbeddingError
    from runtime import components

    from .card_indexing import embed_pending_decklists, meta_collection

    collections = {meta_collection(game) for game in Game.objects.filter(pk__in=[deck.game_id, former_game_id])}
    with transaction.atomic():
        Decklist.objects.filter(pk=deck.pk).update(dense=None, indexed=False)
        for collection in collections:
            mark_changed(collection)
    error = ""
    try:
        embed_pending_decklists(deck.game, components.embedder())
    except EmbeddingError as exc:  # left out of the index (no vector) until embedded again
        log.warning("decklist %s not embedded again: %s", deck.pk, exc)
        error = str(exc)
    _refresh_index(sorted(collections))
    return error


def delete_decklists(decks) -> None:
    """Deleted lists leave the index: their collections are marked, their points dropped."""
    from .card_indexing import meta_collection

    decks = list(decks)
    collections = {meta_collection(deck.game) for deck in decks}
    with transaction.atomic():
        Decklist.objects.filter(pk__in=[deck.pk for deck in decks]).delete()
        for collection in collections:
            mark_changed(collection)
    _refresh_index(sorted(collections))


def refuse_if_busy(booklets: list[Booklet]) -> None:
    """BookletBusy naming every running ingestion of these booklets, before anything changes."""
    running = [found for _receiver, reply in booklets_busy.send(sender=Booklet, booklets=booklets) for found in reply or []]
    if running:
        raise BookletBusy(busy_message(running))


def busy_message(running: list[str]) -> str:
    return ngettext(
        "L'ingestion %(jobs)s est en cours : annulez-la d'abord.",
        "Les ingestions %(jobs)s sont en cours : annulez-les d'abord.",
        len(running),
    ) % {"jobs": ", ".join(running)}


@dataclass(frozen=True)
class BookletStatus:
    chunks: int
    indexed_chunks: int

    @property
    def index_state(self) -> str:
        """`empty` (no rules read yet), `indexed` or `pending` (the index owner syncs soon)."""
        if not self.chunks:
            return "empty"
        return "indexed" if self.indexed_chunks == self.chunks else "pending"


NO_CHUNKS = BookletStatus(chunks=0, indexed_chunks=0)


def booklet_status(booklet: Booklet) -> BookletStatus:
    return booklet_statuses(booklet.game).get(booklet.extension_id, NO_CHUNKS)


def booklet_statuses(game: Game) -> dict:
    """Each booklet's chunk counts by extension id (None: the base booklet), in one query;
    forum passages are not the booklet's."""
    rows = Chunk.objects.filter(game=game, is_forum=False)
    counts = rows.order_by().values("extension_id").annotate(chunks=Count("pk"), indexed=Count("pk", filter=Q(indexed=True)))
    return {row["extension_id"]: BookletStatus(chunks=row["chunks"], indexed_chunks=row["indexed"]) for row in counts}


def last_jobs(game: Game) -> dict:
    """Each booklet's most recent ingestion job by extension id (None: the base booklet), in
    one query (read through the relation: the jobs belong to the ingest app, above this one)."""
    newest_first = [F("created_at").desc(), F("pk").desc()]
    ranked = game.ingest_jobs.annotate(rank=Window(RowNumber(), partition_by=[F("extension_id")], order_by=newest_first))
    return {job.extension_id: job for job in ranked.filter(rank=1)}


def _update_payloads(booklet: Booklet, **fields) -> None:
    rows = list(booklet.chunks().only("id", "payload"))
    for row in rows:
        row.payload = {**row.payload, **fields}
        row.indexed = False
    Chunk.objects.bulk_update(rows, ["payload", "indexed"], batch_size=500)
    mark_changed(booklet.collection)


def _files_of(booklet: Booklet) -> list[Path]:
    media = Path(settings.MEDIA_ROOT)
    files = [media / booklet.pdf.name] if booklet.pdf else []
    files.append(booklet.images_dir)
    for _receiver, kept in booklet_deleting.send(sender=Booklet, booklet=booklet):
        files += list(kept or [])
    return files


def remove_files(paths: list[Path]) -> None:
    for path in {Path(p) for p in paths}:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists():
            path.unlink()


def _refresh_index(collections: list[str]) -> None:
    """Sync now when this process may write the index; else the index owner does it."""
    from rag.store import VectorStoreError
    from runtime import components

    from .indexing import sync_if_changed

    try:
        sync_if_changed(components.vector_store(), collections)
    except VectorStoreError as exc:
        log.info("index %s left to the process that owns the local store: %s", collections, exc)


def _drop_or_sync(collection: str, *, drop: bool) -> None:
    from rag.store import VectorStoreError
    from runtime import components

    try:
        store = components.vector_store()
        if drop:
            store.drop(collection)
        else:
            from .indexing import sync_collection

            sync_collection(store, collection)
    except VectorStoreError as exc:
        log.info("index %s left to the process that owns the local store: %s", collection, exc)
