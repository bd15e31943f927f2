"""Meta documents from their real sources into `meta_<slug>` (the reference's MTGTop8 decklists
for inspiration lists, 17Lands ratings for meta questions).

Each run replaces what it brings: the tournament decks of a format are those of its latest
events (older ones are deleted), a set's ratings are one document updated in place. Rows are
embedded here and `mark_changed` lets the index owner sync (games.indexing). What is synced
comes from settings (docs/scheduling.md, « Meta »); a failing source or format is reported
and does not stop the others.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from runtime import components
from .meta_sources import MetaSourceError, PoliteClient
from .meta_sources import mtgtop8 as top8
from .meta_sources import seventeen_lands as lands

from .card_indexing import embed_pending_decklists, meta_collection
from .indexing import mark_changed
from .models import Decklist, Game

log = logging.getLogger(__name__)

TOURNAMENT_DECK = "tournament_deck"
CARD_RATINGS = "card_ratings"


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
    return PoliteClient(base_url, min_interval_s=settings.META_MIN_INTERVAL_S,
                        cache_dir=settings.META_CACHE_DIR / name, cache_ttl_s=settings.META_CACHE_TTL_S)


def _deck_row_name(deck_id: str) -> str:
    return f"mtgtop8-{deck_id}"


# MTGTop8's codes back to the names legalities, the inspiration lists and meta questions use.
FORMAT_NAMES = {code.lower(): name for name, code in top8.FORMAT_CODES.items()}


def format_name(fmt: str) -> str:
    """`MO` or `Modern` → `modern`: a list stored under `mo` was never found by a Modern deck."""
    return FORMAT_NAMES.get(fmt.strip().lower(), fmt.strip().lower())


def sync_mtgtop8_format(game: Game, fmt: str, source: top8.MtgTop8, report: MetaSyncReport) -> None:
    """The decks of the format's latest events; decks of older events of that format go."""
    code = top8.FORMAT_CODES.get(fmt.lower(), fmt)
    fmt = format_name(fmt)
    kept: set[str] = set()
    for event in source.recent_events(code, settings.META_EVENTS_PER_FORMAT):
        page = source.event(event)
        for entry in page.decks[: settings.META_DECKS_PER_EVENT]:
            kept.add(_deck_row_name(entry.id))
            try:
                sections = source.deck(entry.id)
            except MetaSourceError as exc:  # one missing export does not lose the event
                report.errors.append(f"mtgtop8 deck {entry.id}: {exc}")
                continue
            _store_deck(game, fmt, event, page, entry, sections, source.deck_url(entry, code))
            report.decks += 1
    stale = Decklist.objects.filter(game=game, meta_type=TOURNAMENT_DECK, format=fmt.lower(),
                                    name__startswith="mtgtop8-").exclude(name__in=kept)
    report.removed += stale.delete()[0]


def _store_deck(game, fmt, event, page, entry, sections, url) -> None:
    played_on = page.date or event.date
    who = f", {entry.player}" if entry.player else ""
    rank = f", place {entry.rank}" if entry.rank else ""
    source = f"MTGTop8 — {event.name}{rank}{who} ({entry.name})"
    deck, created = Decklist.objects.get_or_create(
        game=game, name=_deck_row_name(entry.id),
        defaults={"format": fmt.lower(), "sections": sections, "played_on": played_on, "source": source[:300],
                  "meta_type": TOURNAMENT_DECK, "source_url": url},
    )
    if not created and (deck.sections, deck.played_on, deck.source) != (sections, played_on, source[:300]):
        deck.sections, deck.played_on, deck.source, deck.source_url = sections, played_on, source[:300], url
        deck.dense, deck.indexed = None, False
        deck.save()


def sync_17lands_set(game: Game, target: str, source: lands.SeventeenLands, report: MetaSyncReport) -> str:
    """One `card_ratings` document per set and draft format (`LTR` or `LTR:QuickDraft`)."""
    expansion, _, draft_format = target.partition(":")
    draft_format = draft_format or "PremierDraft"
    ratings = source.card_ratings(expansion, draft_format)
    body = lands.ratings_text(ratings, expansion, draft_format)
    name = f"17lands-{expansion.upper()}-{draft_format}"
    deck, created = Decklist.objects.get_or_create(
        game=game, name=name,
        defaults={"format": "limited", "meta_type": CARD_RATINGS, "body": body,
                  "source": f"17Lands — {expansion.upper()} {draft_format}",
                  "source_url": source.page_url(expansion, draft_format)},
    )
    if not created and deck.body != body:
        deck.body, deck.dense, deck.indexed = body, None, False
        deck.save()
    report.ratings += 1
    return name


def sync_game(game: Game, embedder=None) -> MetaSyncReport:
    report = MetaSyncReport(game=game.slug)
    formats = parse_targets(settings.META_SYNC_MTGTOP8).get(game.slug, [])
    sets = parse_targets(settings.META_SYNC_17LANDS).get(game.slug, [])
    if formats:
        _each(formats, report, lambda fmt, src: sync_mtgtop8_format(game, fmt, src, report),
              top8.MtgTop8(client(settings.MTGTOP8_BASE_URL, "mtgtop8")))
    if sets:
        kept = []
        _each(sets, report, lambda target, src: kept.append(sync_17lands_set(game, target, src, report)),
              lands.SeventeenLands(client(settings.SEVENTEENLANDS_BASE_URL, "17lands")))
        if not report.errors:  # a set no longer configured goes; a failed run removes nothing
            report.removed += Decklist.objects.filter(game=game, meta_type=CARD_RATINGS).exclude(name__in=kept).delete()[0]
    embed_pending_decklists(game, embedder or components.embedder())  # marks the collection changed
    with transaction.atomic():
        mark_changed(meta_collection(game))  # deletions alone must reach the index too
    log.info("meta sync %s: %s", game.slug, report)
    return report


def configured_games() -> list[Game]:
    slugs = set(parse_targets(settings.META_SYNC_MTGTOP8)) | set(parse_targets(settings.META_SYNC_17LANDS))
    return list(Game.objects.filter(slug__in=slugs).order_by("slug"))


def sync_game_task(slug: str) -> dict:
    """The django-q2 task of a game's schedule."""
    from dataclasses import asdict

    game = Game.objects.filter(slug=slug).first()
    if game is None:
        return {"game": slug, "errors": ["no such game"]}
    return asdict(sync_game(game))


def _each(targets, report, run, source) -> None:
    try:
        for target in targets:
            try:
                run(target, source)
            except MetaSourceError as exc:
                report.errors.append(str(exc))
                log.warning("meta sync %s %s: %s", report.game, target, exc)
    finally:
        source.client.close()
