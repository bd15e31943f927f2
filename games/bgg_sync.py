"""BoardGameGeek data on our games: thing metadata onto the Game, and the game's "Rules"
forum as forum chunks in its base collection (`rules_<slug>`).

Forum chunks are ordinary Chunk rows (`is_forum=True`, pages 0, `[FORUM]` in the context),
keyed by their BGG thread id so a thread seen again is updated, not duplicated (even by two
syncs at once); threads gone from BGG are deleted, at most BGG_FORUM_MAX_THREADS are kept.
Like every writer, this module only writes rows and calls `mark_changed`; the index owner
syncs Qdrant. Runs daily from a django-q2 schedule when BGG_FORUM_SYNC_ENABLED and a token is
set; games' schedules are kept one per name across processes (games/schedules.py).
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_q.models import Schedule

from rag import sparse
from runtime import components
from runtime.refusals import first_line

from .bgg_client import (BggAuthError, BggClient, BggError, BggNotFound, BggThread, BggThreadSummary, post_time,
                         thread_text)
from .index_state import mark_changed
from .models import Chunk, Game
from .schedules import ensure_schedule

log = logging.getLogger(__name__)

FORUM_MAX_PAGES = 3  # 50 threads a page: the ~150 most recently active threads
THREAD_MAX_CHARS = 2000
FORUM_ORDINAL_BASE = 1_000_000  # after any rulebook chunk of the collection
EMBED_BATCH = 16
RECHECK_PER_RUN = 5  # stored threads no longer listed, asked again each run (5 s each) to find the deleted ones
SCHEDULE_NAME = "bgg-forum-sync"
SYNC_TASK = "games.bgg_sync.sync_all_games"
FETCH_TASK = "games.bgg_sync.fetch_metadata"
LAST_RUN_CACHE_KEY = "bgg:last-forum-sync"


class BggDisabled(Exception):
    """No token (or sync switched off): the reason is meant for the admin."""


@dataclass
class ForumSyncReport:
    game: str
    threads_seen: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0  # gone from BGG, or past BGG_FORUM_MAX_THREADS
    error: str = ""


def disabled_reason() -> str:
    """Why the daily forum sync does not run ('' when it does)."""
    if not settings.BGG_API_TOKEN:
        return _(
            "BGG_API_TOKEN n'est pas défini : BoardGameGeek exige un jeton d'application "
            "enregistré, la synchronisation est désactivée."
        )
    if not settings.BGG_FORUM_SYNC_ENABLED:
        return _("Synchronisation des forums désactivée (BGG_FORUM_SYNC_ENABLED=false).")
    return ""


def client_from_settings() -> BggClient:
    if not settings.BGG_API_TOKEN:
        raise BggDisabled(disabled_reason())
    return BggClient(token=settings.BGG_API_TOKEN, base_url=settings.BGG_BASE_URL, min_interval=settings.BGG_MIN_INTERVAL_S,
                     pace_file=settings.VAR_DIR / "bgg-pace")  # fmt: skip


# --- Metadata ---------------------------------------------------------------------------


def sync_metadata(game: Game, client: BggClient) -> dict:
    """Store mechanics, categories, player counts… of the game's BGG thing on the Game."""
    thing = client.thing(game.bgg_id)
    game.bgg_metadata = {**thing.as_metadata(), "fetched_at": timezone.now().isoformat()}
    game.bgg_synced_at = timezone.now()
    game.save(update_fields=["bgg_metadata", "bgg_synced_at", "updated_at"])
    return game.bgg_metadata


def fetch_metadata(game_id: str) -> dict:
    """django-q2 task: fetch one game's BGG metadata (queued when its BGG id is set)."""
    game = Game.objects.get(pk=game_id)
    client = client_from_settings()
    try:
        return sync_metadata(game, client)
    finally:
        client.close()


def fetch_metadata_when_bgg_id_set(sender, instance: Game, update_fields=None, **kwargs) -> None:
    """post_save of Game: a new or changed BGG id gets its metadata soon, not at 3 a.m."""
    if not settings.BGG_API_TOKEN or not instance.bgg_id:
        return
    if update_fields and "bgg_metadata" in update_fields:
        return  # our own save
    if (instance.bgg_metadata or {}).get("bgg_id") == instance.bgg_id:
        return
    from django_q.tasks import async_task

    game_id = str(instance.pk)
    transaction.on_commit(lambda: async_task(FETCH_TASK, game_id, task_name=f"bgg-metadata-{game_id}"))


def metadata_summary(game: Game) -> str:
    """One line for the answer context: "Mécaniques : … · Catégories : … · 1-5 joueurs"."""
    meta = game.bgg_metadata or {}
    parts = []
    if meta.get("mechanics"):
        parts.append(_("Mécaniques : %s") % ", ".join(meta["mechanics"]))
    if meta.get("categories"):
        parts.append(_("Catégories : %s") % ", ".join(meta["categories"]))
    if meta.get("min_players") and meta.get("max_players"):
        parts.append(_("%(min)s-%(max)s joueurs") % {"min": meta["min_players"], "max": meta["max_players"]})
    return " · ".join(parts)


# --- Forum ------------------------------------------------------------------------------


def sync_forum(game: Game, client: BggClient, max_pages: int = FORUM_MAX_PAGES) -> ForumSyncReport:
    """Read the game's Rules forum and store each thread as one forum chunk, EMBED_BATCH
    threads at a time as they are read (a thread costs a paced call of seconds): when BGG
    fails half-way, what was read is kept, the report says what failed, and the next run
    reads only the threads still missing or with new posts. Threads BGG says are gone are
    deleted; the BGG_FORUM_MAX_THREADS most recently active are kept."""
    report = ForumSyncReport(game=game.slug)
    drop_other_forums(game)  # the id was changed where the admin could not see it (a shell)
    forum = client.rules_forum(game.bgg_id)
    if forum is None:
        report.error = "no Rules forum"
        return report
    stored = {c.payload.get("bgg_thread_id"): c for c in forum_chunks(game)}
    listed: set[int] = set()
    try:
        _read_forum(game, client, forum.id, max_pages, stored, listed, report)
        _recheck_unlisted(game, client, stored, listed, report)
    except BggError as exc:
        if isinstance(exc, BggAuthError):
            raise
        log.warning("BGG forum sync of %s stopped: %s", game.slug, exc)
        report.error = str(exc)
    report.deleted += _keep_most_recent(game)
    return report


def _read_forum(game: Game, client: BggClient, forum_id: int, max_pages: int, stored: dict, listed: set,
                report: ForumSyncReport) -> None:
    """The listing's threads that are new or have new posts, fetched and stored."""
    read: list[tuple[BggThreadSummary, BggThread]] = []
    try:
        for summary in client.recent_threads(forum_id, max_pages):
            report.threads_seen += 1
            listed.add(summary.id)
            existing = stored.get(summary.id)
            if existing and existing.payload.get("bgg_last_post_date") == summary.last_post_date:
                report.unchanged += 1  # no new post: skip the 5-second call for the thread
                continue
            try:
                read.append((summary, client.thread(summary.id)))
            except BggNotFound:  # deleted since the listing
                report.deleted += _drop_thread(game, stored, summary.id)
                continue
            if len(read) == EMBED_BATCH:
                _store_threads(game, read, stored, report)
                read = []
    except BggError:
        _store_threads(game, read, stored, report)  # what was read stays
        raise
    _store_threads(game, read, stored, report)


def _recheck_unlisted(game: Game, client: BggClient, stored: dict, listed: set, report: ForumSyncReport) -> None:
    """Ask BGG again for a few stored threads the listing does not show, least recently
    checked first: a deleted thread is never listed again, and would otherwise stay for ever
    (one that is only less active than the listed ones stays)."""
    unlisted = sorted((c for thread_id, c in stored.items() if thread_id is not None and thread_id not in listed),
                      key=lambda chunk: chunk.payload.get("bgg_checked_at", ""))
    for chunk in unlisted[:RECHECK_PER_RUN]:
        thread_id = chunk.payload["bgg_thread_id"]
        try:
            client.thread(thread_id)
        except BggNotFound:
            report.deleted += _drop_thread(game, stored, thread_id)
            continue
        chunk.payload = {**chunk.payload, "bgg_checked_at": timezone.now().isoformat()}
        Chunk.objects.filter(pk=chunk.pk).update(payload=chunk.payload)


def _drop_thread(game: Game, stored: dict, thread_id: int) -> int:
    stored.pop(thread_id, None)
    log.info("%s: BGG thread %s is gone, deleted", game.slug, thread_id)
    return _delete_chunks(dict(forum_chunks(game).filter(payload__bgg_thread_id=thread_id).values_list("id", "collection")))


def _keep_most_recent(game: Game) -> int:
    """Delete the game's threads past the BGG_FORUM_MAX_THREADS with the latest posts: each run
    adds the newly active ones, and the oldest would pile up for ever."""
    rows = list(forum_chunks(game).values_list("id", "collection", "payload"))
    if len(rows) <= settings.BGG_FORUM_MAX_THREADS:
        return 0
    rows.sort(key=lambda row: post_time(row[2].get("bgg_last_post_date", "")), reverse=True)
    return _delete_chunks({pk: collection for pk, collection, _payload in rows[settings.BGG_FORUM_MAX_THREADS:]})


def _delete_chunks(chunks: dict) -> int:
    """Delete chunks (id → collection) and mark their collections changed, in one transaction."""
    if not chunks:
        return 0
    with transaction.atomic():
        Chunk.objects.filter(pk__in=chunks).delete()
        for collection in set(chunks.values()):
            mark_changed(collection)
    return len(chunks)


def forum_chunks(game: Game):
    return Chunk.objects.filter(game=game, extension=None, is_forum=True)


def drop_other_forums(game: Game, unrecorded: bool = False) -> int:
    """Delete the forum chunks of another BGG thing than the game's (all of them when its id
    is cleared): after a wrong id is corrected, its forum would still be cited as [FORUM].
    Chunks stored before the thing id was recorded in their payload go too when `unrecorded`
    (the admin changed the id: they were the former id's); the daily sync keeps them (they are
    the current id's unless it changed, and fetching again costs a 5-second call a thread)."""
    others: dict = {}  # chunk id -> its collection
    for pk, collection, payload in forum_chunks(game).values_list("id", "collection", "payload"):
        thing = payload.get("bgg_id")
        if game.bgg_id is None or thing not in (None, game.bgg_id) or (thing is None and unrecorded):
            others[pk] = collection
    if others:
        log.info("%s: %d forum chunks of another BGG id deleted", game.slug, len(others))
    return _delete_chunks(others)


def forum_chunk_context(game: Game, thread: BggThread) -> str:
    return f"[FORUM] {_('Forum BoardGameGeek « Rules » de %(game)s') % {'game': game.name}} — {thread.subject}"


def _store_threads(game: Game, batch: list[tuple[BggThreadSummary, BggThread]], stored: dict,
                   report: ForumSyncReport) -> None:
    """Embed and write one batch of threads, counted in `report` as created or updated."""
    if not batch:
        return
    embedder = components.embedder()
    contexts = [forum_chunk_context(game, thread) for _summary, thread in batch]
    texts = [thread_text(thread, THREAD_MAX_CHARS) for _summary, thread in batch]
    vectors = embedder.embed_passages([f"{c}\n\n{t}" for c, t in zip(contexts, texts)])
    collection = game.base_booklet.collection
    created = 0
    with transaction.atomic():
        current = _current_chunks(game, [thread.id for _summary, thread in batch])
        for (summary, thread), context, text, vector in zip(batch, contexts, texts, vectors):
            chunk = current.get(thread.id) or Chunk(game=game, extension=None, is_forum=True)
            created += chunk._state.adding
            chunk.collection = collection
            chunk.ordinal = FORUM_ORDINAL_BASE + thread.id % FORUM_ORDINAL_BASE
            chunk.text, chunk.context = text, context
            chunk.page_start, chunk.page_end, chunk.page_offsets = 0, 0, []
            chunk.hierarchy_path = "Forum BGG > Rules"
            chunk.payload = _payload(game, summary, thread)
            chunk.dense_vector, chunk.embedder = vector, embedder.name
            chunk.sparse = sparse.document_vector(f"{context}\n{text}").as_dict()
            chunk.indexed = False
            chunk.save()
            current[thread.id] = stored[thread.id] = chunk  # a thread twice in a batch (listed on two pages)
        mark_changed(collection)
    report.created += created
    report.updated += len(batch) - created


def _current_chunks(game: Game, thread_ids: list[int]) -> dict:
    """The stored chunks of these threads, under a lock of the game's row (SQLite: the write lock
    taken at BEGIN IMMEDIATE): two syncs of the game at once write one after the other, the
    second updating what the first created. A thread stored twice before keeps one chunk."""
    Game.objects.select_for_update().filter(pk=game.pk).first()
    current: dict = {}
    for chunk in forum_chunks(game).filter(payload__bgg_thread_id__in=thread_ids).order_by("created_at"):
        if current.setdefault(chunk.payload["bgg_thread_id"], chunk) is not chunk:
            chunk.delete()  # a copy two syncs stored before this lock
    return current


def _payload(game: Game, summary: BggThreadSummary, thread: BggThread) -> dict:
    return {
        "source": "bgg_forum",
        "bgg_id": game.bgg_id,  # the thing whose forum this is (drop_other_forums)
        "bgg_thread_id": thread.id,
        "bgg_thread_url": thread.link or f"https://boardgamegeek.com/thread/{thread.id}",
        "bgg_subject": thread.subject,
        "bgg_last_post_date": summary.last_post_date,
        "bgg_articles": len(thread.articles),
    }


# --- Whole runs and the daily schedule ----------------------------------------------------


def sync_game(game: Game, client: BggClient | None = None, forum: bool = True) -> ForumSyncReport:
    client = client or client_from_settings()
    sync_metadata(game, client)
    return sync_forum(game, client) if forum else ForumSyncReport(game=game.slug)


def sync_all_games() -> list[dict]:
    """The daily task: metadata and Rules forum of every game with a BGG id. A game that fails,
    whatever the error (BGG, the embedder down), is reported and the others still sync; a
    refused token stops the run. The run is recorded (`last_run`, health `bgg`) however it ends."""
    if reason := disabled_reason():
        log.info("BGG sync skipped: %s", reason)
        return []
    client = client_from_settings()
    reports = []
    try:
        for game in Game.objects.exclude(bgg_id=None):
            reports.append(asdict(sync_one(game, client)))
    except BggAuthError as exc:
        reports.append(asdict(ForumSyncReport(game="*", error=str(exc))))
    except Exception as exc:  # not a game's failure: recorded, and django-q2 shows the run failed
        reports.append(asdict(ForumSyncReport(game="*", error=f"{type(exc).__name__}: {exc}")))
        raise
    finally:
        client.close()
        cache.set(LAST_RUN_CACHE_KEY, {"at": timezone.now().isoformat(), "reports": reports}, None)
    return reports


def sync_one(game: Game, client: BggClient, *, forum: bool = True) -> ForumSyncReport:
    """`sync_game` in a run (the daily task, `sync_bgg`): a failure is the report's one-line
    `error` and the run goes on; a refused token raises BggAuthError (wrong for every game)."""
    try:
        report = sync_game(game, client, forum=forum)
    except Exception as exc:  # noqa: BLE001 - BGG, or the embedder down: this game fails, not the run
        if isinstance(exc, BggAuthError):
            raise
        log.warning("BGG sync of %s failed: %s", game.slug, exc, exc_info=not isinstance(exc, BggError))
        said = first_line(exc)
        report = ForumSyncReport(game=game.slug, error=said if isinstance(exc, BggError) else f"{type(exc).__name__}: {said}")
    log.info("BGG sync of %s: %s", game.slug, report)
    return report


def last_run() -> dict | None:
    return cache.get(LAST_RUN_CACHE_KEY)


def ensure_forum_sync_schedule(now: datetime | None = None) -> Schedule | None:
    """Keep the daily schedule in line with the settings (called at start-up)."""
    if disabled_reason():
        Schedule.objects.filter(name=SCHEDULE_NAME).delete()
        return None
    return ensure_schedule(SCHEDULE_NAME, settings.BGG_FORUM_SYNC_HOUR, now or timezone.now(), func=SYNC_TASK, schedule_type=Schedule.DAILY)
