"""Card look-ups: autocomplete, @-mention resolution, names written in an answer. They run on
an in-memory index of the folded names (English, French, front faces), rebuilt when the
catalog changes, so a 30k-card game never has its table scanned per keystroke."""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass
from typing import Iterable

from rag.cards import face_aliases, fold_name
from rag.deckbuilding.parse_validate import front_face_key

from .card_indexing import card_collection, card_payload
from .models import Card, Game, IndexState


@dataclass
class _NameIndex:
    """Folded English and French names of a game's cards, sorted for prefix look-ups by bisection:
    autocomplete and mentions never scan the card table (rows carry their vectors)."""

    stamp: tuple
    keys: list[str]  # sorted folded names
    ids: list[str]  # card id of each key
    exact: dict[str, str]
    by_initial: dict[str, list[str]]


_name_indexes: dict[str, _NameIndex] = {}


def forget_catalog(game: Game) -> None:
    _name_indexes.pop(str(game.pk), None)


def _name_index(game: Game) -> _NameIndex:
    version = IndexState.objects.filter(collection=card_collection(game)).values_list("version", flat=True).first()
    stamp = (version, Card.objects.filter(game=game).count())
    cached = _name_indexes.get(str(game.pk))
    if cached and cached.stamp == stamp:
        return cached
    pairs = []
    for pk, name, name_fr in Card.objects.filter(game=game).values_list("id", "search_name", "search_name_fr"):
        pairs += [(name, str(pk))] + ([(name_fr, str(pk))] if name_fr else [])
        # the French print of Fire // Ice is « Feu // Glace »: « Feu » is its front face too
        pairs += [(alias, str(pk)) for alias in face_aliases(name) + face_aliases(name_fr or "")]
    pairs.sort()
    by_initial: dict[str, list[str]] = {}
    for name, _ in pairs:
        by_initial.setdefault(name[:1], []).append(name)
    index = _NameIndex(stamp, [n for n, _ in pairs], [pk for _, pk in pairs], dict(reversed(pairs)), by_initial)
    _name_indexes[str(game.pk)] = index
    return index


def catalog_card_key(game: Game):
    """The card key of `validate_deck` over the game's catalog: a card's English and French
    names and front face count as one card for the copy limit. It reads the name index
    (kept in memory until the catalog changes), not the card table per check."""
    exact = _name_index(game).exact
    return lambda name: exact.get(fold_name(name)) or front_face_key(name)


def catalog_names(game: Game) -> set[str]:
    """Every folded name (English, French, front face) of the game's cards."""
    return set(_name_index(game).exact)


def _cards_in_order(ids: list[str]) -> list[Card]:
    order = {pk: i for i, pk in enumerate(ids)}
    cards = Card.objects.filter(pk__in=ids).defer("dense", "sparse")
    return sorted(cards, key=lambda c: order[str(c.pk)])


def search_cards(game: Game, query: str, limit: int = 10) -> list[Card]:
    """Autocomplete: names starting with the query first (shortest first), then names with a
    word starting with it, then close spellings (typos), in French and English."""
    folded = fold_name(query)
    if not folded:
        return []
    index = _name_index(game)
    ids: list[str] = []
    for found in (_prefix_ids(index, folded, limit), _word_prefix_ids(index, folded, limit), _fuzzy_ids(index, folded, limit)):
        ids += [pk for pk in found if pk not in ids]
        if len(ids) >= limit:
            break
    return _cards_in_order(ids[:limit])


def _prefix_ids(index: _NameIndex, folded: str, limit: int) -> list[str]:
    start = bisect.bisect_left(index.keys, folded)
    matches = []
    for position in range(start, len(index.keys)):
        if not index.keys[position].startswith(folded) or len(matches) >= limit * 5:
            break
        matches.append((len(index.keys[position]), index.keys[position], index.ids[position]))
    return [pk for _, _, pk in sorted(matches)]


def _word_prefix_ids(index: _NameIndex, folded: str, limit: int) -> list[str]:
    needle = f" {folded}"
    matches = [(len(name), pk) for name, pk in zip(index.keys, index.ids) if needle in f" {name}"]
    return [pk for _, pk in sorted(matches)[: limit * 2]]


def _fuzzy_ids(index: _NameIndex, folded: str, limit: int) -> list[str]:
    """Close spellings of a whole name, or of the beginning of a name being typed (names sharing
    the query's first letter: a typo there is rare, and it keeps this fast on 30k cards)."""
    candidates: dict[str, str] = {}
    for name in index.by_initial.get(folded[:1], []):
        candidates.setdefault(name, name)
        candidates.setdefault(name[: len(folded)], name)
    close = difflib.get_close_matches(folded, list(candidates), n=limit * 2, cutoff=0.75)
    return [index.exact[candidates[name]] for name in close]


def find_card(game: Game, name: str) -> Card | None:
    """The card a player named (exact English or French name or front face, else a close
    spelling of a whole name)."""
    folded = fold_name(name)
    index = _name_index(game)
    pk = index.exact.get(folded) or _closest_whole_name(index, folded)
    return Card.objects.filter(pk=pk).first() if pk else None


def _closest_whole_name(index: _NameIndex, folded: str) -> str | None:
    """The card whose whole name is a close spelling of `folded` (a typo), when no other card's
    is as close. Unlike autocomplete, a fragment (« Teferi ») or a tie names no card: an
    anchor, a mention or a chip would otherwise stand for an arbitrary card that starts so."""
    if not folded:
        return None
    close = difflib.get_close_matches(folded, index.by_initial.get(folded[:1], []), n=2, cutoff=0.75)
    if not close:
        return None
    ratios = [difflib.SequenceMatcher(None, name, folded).ratio() for name in close]
    if len(close) == 2 and ratios[0] == ratios[1] and index.exact[close[0]] != index.exact[close[1]]:
        return None
    return index.exact[close[0]]


def cards_known_as(game: Game, names: Iterable[str]) -> dict[str, Card]:
    """The cards of the names exactly as the catalog spells them (English, French, front face),
    in one query: for a pasted list, whose unknown names are already reported as such, no
    close-spelling search per line (thousands of lines would cost seconds each)."""
    index = _name_index(game)
    pks = {name: index.exact[fold_name(name)] for name in names if fold_name(name) in index.exact}
    cards = {str(card.pk): card for card in Card.objects.filter(pk__in=set(pks.values())).defer("dense", "sparse")}
    return {name: cards[pk] for name, pk in pks.items() if pk in cards}


def cards_named_in(game: Game, text: str) -> list[dict]:
    """Card dicts of the catalog cards whose English or French name appears in `text` (a
    capitalised run of words; one-word names of 4 letters or more), for `[[card:…]]` wrapping."""
    index = _name_index(game)
    words = list(_WORD_RE.finditer(text))
    found: set[str] = set()
    for start, word in enumerate(words):
        if not word.group(0)[:1].isupper():
            continue
        for end in range(min(len(words), start + MAX_NAME_WORDS), start, -1):
            phrase = fold_name(text[word.start() : words[end - 1].end()])
            if phrase in index.exact and (" " in phrase or len(phrase) >= 4):
                found.add(index.exact[phrase])
                break
    return [card_payload(card) for card in Card.objects.filter(pk__in=found)]


_WORD_RE = re.compile(r"[\w'’-]+|//")
MAX_NAME_WORDS = 7


def resolve_mentions(game: Game, names: Iterable[str]) -> list[dict]:
    """Card dicts (`card_payload`) for the names a player @-mentioned; unknown names are skipped."""
    resolved, seen = [], set()
    for name in names:
        card = find_card(game, name)
        if card is not None and card.pk not in seen:
            seen.add(card.pk)
            resolved.append(card_payload(card))
    return resolved

