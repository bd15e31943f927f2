"""Meta documents from their real sources into `meta_<slug>` (the reference's MTGTop8 decklists
for inspiration lists, 17Lands ratings for meta questions).

Each run replaces what it brings: the tournament decks of a format are those of its latest
events (older ones are deleted once newer ones are stored), a set's ratings are one document
updated in place, and formats and sets no longer configured are deleted. Rows are embedded
here and `mark_changed` lets the index owner sync (games.indexing). What is synced comes from
settings (docs/scheduling.md, « Meta »); a failing source or format is reported and does not
stop the others, and never costs what an earlier run stored. Each game's last run is kept in
the cache for `/api/health` (`last_runs`).
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from runtime import components
from .meta_sources import MetaSourceError, PoliteClient
from .meta_sources import mtgtop8 as top8
from .meta_sources import seventeen_lands as lands

from .card_indexing import embed_pending_decklists, meta_collection
from .decklists import store_document
from .indexing import mark_changed
from .models import Decklist, Game

log = logging.getLogger(__name__)

TOURNAMENT_DECK = "tournament_deck"
CARD_RATINGS = "card_ratings"
DECK_PREFIX, RATINGS_PREFIX = "mtgtop8-", "17lands-"  # the rows this module owns (not hand-imported lists)
LAST_RUN_CACHE_KEY = "meta:last-sync:{slug}"


class MetaSyncFailed(RuntimeError):
    """Nothing of a game's meta sources could be read: its scheduled task fails (django-q2
    lists it under failed tasks) once what it could do is stored and the run recorded."""


@dataclass
class MetaSyncReport:
    game: str
    decks: int = 0
    ratings: int = 0
    removed: int = 0
    errors: list[str] = field(default_factory=list)


def parse_targets(value: str) -> dict[str, list[str]]:
    """`"magic=modern,legacy;fab=classic constructed"` → `{"magic": ["modern", "legacy"], …}`."""
    targets: dict[str, list[str]] = {}
    for part in (value or "").split(";"):
        if "=" in part:
            slug, items = part.split("=", 1)
            targets[slug.strip()] = [i.strip() for i in items.split(",") if i.strip()]
    return targets


def client(base_url: str, name: str) -> PoliteClient:
    polite = PoliteClient(base_url, min_interval_s=settings.META_MIN_INTERVAL_S,
                          cache_dir=settings.META_CACHE_DIR / name, cache_ttl_s=settings.META_CACHE_TTL_S)
    polite.prune_cache()  # answers past their TTL are never read again: the folder would only grow
    return polite


def _deck_row_name(deck_id: str) -> str:
    return f"{DECK_PREFIX}{deck_id}"


def _ratings_row_name(target: str) -> str:
    """`LTR` → `17lands-LTR-PremierDraft`, `ltr:QuickDraft` → `17lands-LTR-QuickDraft`."""
    expansion, _, draft_format = target.partition(":")
    return f"{RATINGS_PREFIX}{expansion.upper()}-{draft_format or 'PremierDraft'}"


def _synced_decks(game: Game):
    return Decklist.objects.filter(game=game, meta_type=TOURNAMENT_DECK, name__startswith=DECK_PREFIX)


def _synced_ratings(game: Game):
    return Decklist.objects.filter(game=game, meta_type=CARD_RATINGS, name__startswith=RATINGS_PREFIX)


# MTGTop8's codes back to the names legalities, the inspiration lists and meta questions use.
FORMAT_NAMES = {code.lower(): name for name, code in top8.FORMAT_CODES.items()}


def format_name(fmt: str) -> str:
    """`MO` or `Modern` → `modern`: a list stored under `mo` was never found by a Modern deck."""
    return FORMAT_NAMES.get(fmt.strip().lower(), fmt.strip().lower())


def sync_mtgtop8_format(game: Game, fmt: str, source: top8.MtgTop8, report: MetaSyncReport) -> None:
    """The decks of the format's latest events; decks of older events of that format go once
    newer ones are stored (`_drop_older_decks`)."""
    code = top8.FORMAT_CODES.get(fmt.lower(), fmt)
    fmt = format_name(fmt)
    decks = _synced_decks(game).filter(format=fmt)
    before = decks.count()
    wanted: list[str] = []
    for event in source.recent_events(code, settings.META_EVENTS_PER_FORMAT):
        page = source.event(event)
        for entry in page.decks[: settings.META_DECKS_PER_EVENT]:
            wanted.append(_deck_row_name(entry.id))
            _read_deck(game, fmt, code, event, page, entry, source, report)
    report.removed += _drop_older_decks(decks, wanted, before)


def _read_deck(game, fmt, code, event, page, entry, source, report) -> None:
    try:
        sections = source.deck(entry.id)
    except MetaSourceError as exc:  # one missing export does not lose the event
        report.errors.append(f"mtgtop8 deck {entry.id}: {exc}")
        return
    _store_deck(game, fmt, event, page, entry, sections, source.deck_url(entry, code))
    report.decks += 1


def _drop_older_decks(decks, wanted: list[str], before: int) -> int:
    """Delete the decks of older events, except the most recent of them standing in for decks
    of the latest events that could not be read (an export answering 503) — as many as it
    takes to keep the `before` lists the format had: a failing site never leaves a format
    with fewer lists, and a deck stored earlier is kept whether or not it could be read again."""
    current = set(decks.filter(name__in=wanted).values_list("name", flat=True))
    unread = len(set(wanted)) - len(current)
    stand_ins = min(unread, max(0, before - len(current)))
    older = decks.exclude(name__in=current).order_by(F("played_on").desc(nulls_last=True), "-created_at")
    keep = list(older.values_list("pk", flat=True)[:stand_ins])
    return older.exclude(pk__in=keep).delete()[0]


def _store_deck(game, fmt, event, page, entry, sections, url) -> None:
    played_on = page.date or event.date
    who = f", {entry.player}" if entry.player else ""
    rank = f", place {entry.rank}" if entry.rank else ""
    source = f"MTGTop8 — {event.name}{rank}{who} ({entry.name})"
    store_document(game, _deck_row_name(entry.id), embedded={"sections": sections, "played_on": played_on, "source": source[:300]},
                   format=fmt.lower(), meta_type=TOURNAMENT_DECK, source_url=url)  # fmt: skip


def sync_17lands_set(game: Game, target: str, source: lands.SeventeenLands, report: MetaSyncReport) -> str:
    """One `card_ratings` document per set and draft format (`LTR` or `LTR:QuickDraft`)."""
    expansion, _, draft_format = target.partition(":")
    draft_format = draft_format or "PremierDraft"
    ratings = source.card_ratings(expansion, draft_format)  # NoData when no card is rated: the document stays
    body = lands.ratings_text(ratings, expansion, draft_format)
    name = _ratings_row_name(target)
    store_document(game, name, embedded={"body": body}, format="limited", meta_type=CARD_RATINGS,
                   source=f"17Lands — {expansion.upper()} {draft_format}", source_url=source.page_url(expansion, draft_format))  # fmt: skip
    report.ratings += 1
    return name


def sync_game(game: Game, embedder=None) -> MetaSyncReport:
    """Sync the game's configured formats and sets, delete those no longer configured, record
    the run (`last_runs`)."""
    report = MetaSyncReport(game=game.slug)
    try:
        _sync_sources(game, report)
        embed_pending_decklists(game, embedder or components.embedder())  # marks the collection changed
        with transaction.atomic():
            mark_changed(meta_collection(game))  # deletions alone must reach the index too
    except Exception as exc:  # the embedder down, the database: recorded with the run, then raised
        report.errors.append(f"{type(exc).__name__}: {exc}")
        raise
    finally:
        log.info("meta sync %s: %s", game.slug, report)
        _record(report)
    return report


def _sync_sources(game: Game, report: MetaSyncReport) -> None:
    formats = parse_targets(settings.META_SYNC_MTGTOP8).get(game.slug, [])
    sets = parse_targets(settings.META_SYNC_17LANDS).get(game.slug, [])
    # Each source cleans up only when all its targets were read: a format or set that failed
    # may be a misspelt replacement of the one that would go (deck exports do not count).
    if _each(formats, report, lambda fmt, src: sync_mtgtop8_format(game, fmt, src, report),
             lambda: top8.MtgTop8(client(settings.MTGTOP8_BASE_URL, "mtgtop8"))):
        report.removed += _synced_decks(game).exclude(format__in=[format_name(f) for f in formats]).delete()[0]
    if _each(sets, report, lambda target, src: sync_17lands_set(game, target, src, report),
             lambda: lands.SeventeenLands(client(settings.SEVENTEENLANDS_BASE_URL, "17lands"))):
        report.removed += _synced_ratings(game).exclude(name__in=[_ratings_row_name(t) for t in sets]).delete()[0]


def configured_slugs() -> list[str]:
    return sorted(set(parse_targets(settings.META_SYNC_MTGTOP8)) | set(parse_targets(settings.META_SYNC_17LANDS)))


def configured_games(leftovers: bool = True) -> list[Game]:
    """The games with a meta source; with `leftovers` (`manage.py sync_meta`), also those that
    still hold synced documents though the settings no longer name them, so that their sync
    deletes them. Nothing at all configured is read as settings not loaded: no leftover then."""
    slugs = configured_slugs()
    wanted = Q(slug__in=slugs)
    if leftovers and slugs:
        owned = Q(name__startswith=DECK_PREFIX, meta_type=TOURNAMENT_DECK) | Q(name__startswith=RATINGS_PREFIX, meta_type=CARD_RATINGS)
        wanted |= Q(pk__in=Decklist.objects.filter(owned).values("game_id"))
    return list(Game.objects.filter(wanted).order_by("slug"))


def sync_game_task(slug: str) -> dict:
    """The django-q2 task of a game's schedule. It fails (django-q2 lists a failed task, health
    `meta` is degraded) when nothing could be read; a partial run succeeds with its errors."""
    game = Game.objects.filter(slug=slug).first()
    if game is None:
        raise MetaSyncFailed(f"no game {slug!r}")
    report = sync_game(game)
    if report.errors and not (report.decks or report.ratings):
        raise MetaSyncFailed(f"meta sync of {slug}: nothing could be read: " + "; ".join(report.errors))
    return asdict(report)


def _record(report: MetaSyncReport) -> None:
    cache.set(LAST_RUN_CACHE_KEY.format(slug=report.game), {"at": timezone.now().isoformat(), **asdict(report)}, None)


def last_runs(slugs: list[str]) -> dict[str, dict]:
    """The last recorded run of each game (slug → report with its time `at`); a game never run is absent."""
    found = cache.get_many([LAST_RUN_CACHE_KEY.format(slug=slug) for slug in slugs])
    return {slug: found[key] for slug in slugs if (key := LAST_RUN_CACHE_KEY.format(slug=slug)) in found}


def _each(targets, report, run, make_source) -> bool:
    """Run `run(target, source)` on each target; True when none failed (no target: nothing to fail)."""
    if not targets:
        return True
    source, failed = make_source(), 0
    try:
        for target in targets:
            try:
                run(target, source)
            except MetaSourceError as exc:
                failed += 1
                report.errors.append(str(exc))
                log.warning("meta sync %s %s: %s", report.game, target, exc)
    finally:
        source.client.close()
    return not failed
