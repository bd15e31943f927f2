"""A game's French ↔ English terms (GameTerm rows) and the keywords its rules documents define.

Both are read from the database, the source of truth, and handed to `rag` as plain objects:
- `learn_card_terms(game)` rebuilds the terms learnt from the card catalog's parallel
  texts (`rag.terms.learn_from_cards`); `import_cards` calls it after each import. Terms
  typed by hand (source « manual ») are kept and win.
- `learn_booklet_terms(game)` rebuilds the terms learnt from a French and an English
  booklet of the game that are translations of each other (same-numbered headings); the
  ingestion calls it after each booklet.
- `game_terms(game)` is the `rag.terms.GameTerms` of a game, cached until its terms change.
- `rule_keywords(collection)` is the keyword → rule number map a numbered-rules booklet
  stored in its chunks' payload at ingestion (`ingest.stages.rules`), cached per index
  version of the collection.
"""

from __future__ import annotations

import threading

from django.db import transaction

from rag.language import ENGLISH, FRENCH, normalise
from rag.terms import GameTerms, learn_from_cards, learn_from_headings

from .models import Card, Chunk, Game, GameTerm, IndexState

_lock = threading.Lock()
_terms_cache: dict[str, tuple[tuple, GameTerms]] = {}
_keywords_cache: dict[str, tuple[int, dict[str, str]]] = {}


def learn_card_terms(game: Game) -> int:
    """Replace the game's card-learnt terms with those of its current catalog; returns how many."""
    texts = Card.objects.filter(game=game).exclude(text_fr="").values_list("text", "text_fr")
    pairs = learn_from_cards(texts.iterator())
    manual = set(GameTerm.objects.filter(game=game, source=GameTerm.Source.MANUAL).values_list("english", flat=True))
    rows = [
        GameTerm(game=game, french=p.french[:120], english=p.english[:120], support=p.support)
        for p in pairs
        if p.english not in manual
    ]
    with transaction.atomic():
        GameTerm.objects.filter(game=game, source=GameTerm.Source.CARDS).delete()
        GameTerm.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def learn_booklet_terms(game: Game) -> int:
    """Replace the game's heading-learnt terms: same-numbered headings of each French and
    English pair of its booklets that are translations of each other (rag.terms)."""
    headings: dict[str, set[str]] = {FRENCH: set(), ENGLISH: set()}
    by_booklet = []
    for booklet in [game.base_booklet] + [ext.booklet for ext in game.extensions.all()]:
        lang = normalise(booklet.language)
        if lang in headings:
            paths = booklet.chunks().exclude(is_forum=True).values_list("hierarchy_path", flat=True)
            by_booklet.append((lang, {part for path in paths for part in path.split(" > ") if part}))
    pairs = [
        pair
        for lang, french in by_booklet
        if lang == FRENCH
        for other, english in by_booklet
        if other == ENGLISH
        for pair in learn_from_headings(french, english)
    ]
    rows = [GameTerm(game=game, french=p.french[:120], english=p.english[:120], source=GameTerm.Source.BOOKLETS) for p in pairs]
    with transaction.atomic():
        GameTerm.objects.filter(game=game, source=GameTerm.Source.BOOKLETS).delete()
        GameTerm.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def game_terms(game: Game) -> GameTerms | None:
    """The game's terms, or None when it has none (most board games)."""
    rows = tuple(GameTerm.objects.filter(game=game).order_by("pk").values_list("french", "english"))
    if not rows:
        return None
    key = str(game.pk)
    with _lock:
        cached = _terms_cache.get(key)
        if cached is None or cached[0] != rows:
            cached = (rows, GameTerms(rows))
            _terms_cache[key] = cached
    return cached[1]


def rule_keywords(collection: str) -> dict[str, str]:
    """keyword → rule number defined by the booklet of `collection` ({} for an ordinary one)."""
    return rule_keywords_of([collection])[collection]


def rule_keywords_of(collections: list[str]) -> dict[str, dict[str, str]]:
    """`rule_keywords` of several booklets with one query while their index is unchanged."""
    versions = dict(IndexState.objects.filter(collection__in=collections).values_list("collection", "version"))
    return {collection: _rule_keywords(collection, versions.get(collection) or 0) for collection in collections}


def _rule_keywords(collection: str, state: int) -> dict[str, str]:
    with _lock:
        cached = _keywords_cache.get(collection)
    if cached is not None and cached[0] == state:
        return cached[1]
    keywords: dict[str, str] = {}
    payloads = Chunk.objects.filter(collection=collection, payload__has_key="rule_keywords").values_list("payload", flat=True)
    for payload in payloads:
        for keyword, number in (payload.get("rule_keywords") or {}).items():
            keywords.setdefault(keyword, number)
    with _lock:
        _keywords_cache[collection] = (state, keywords)
    return keywords
