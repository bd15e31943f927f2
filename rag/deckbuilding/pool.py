"""The eligible pool: every card the deck may contain, found by structural filters over the
card collection (scroll without vectors), then role candidates capped at 30 per role, cards
seen in the inspiration decklists first (docs/architecture.md, « Pool exhaustif »)."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from rag.cards import fold_name
from rag.sparse import query_vector
from rag.store import Filter, VectorStore

from .spec import DeckSpec

ROLE_CAP = 30
INSPIRATION_LIMIT = 5
MTG_COLORS = "WUBRG"


def card_types(card: dict) -> set[str]:
    types = set(card.get("card_types") or [])
    type_line = fold_name(card.get("type", ""))
    return types | {word for word in type_line.replace("-", " ").split()}


def role_of(card: dict, game: str) -> str | None:
    """The role (main deck) or section (runes, battlefields) a card fills; None: not in a deck."""
    types = card_types(card)
    if game == "mtg":
        if "land" in types:
            return "lands"
        if "creature" in types:
            return "creatures"
        return "spells" if types & {"instant", "sorcery", "enchantment", "artifact", "planeswalker", "battle", "kindred", "tribal"} else None
    if game == "riftbound":
        for role, names in (("runes", {"rune"}), ("battlefields", {"battlefield"}), ("legend", {"legend"}),
                            ("units", {"unit", "champion"}), ("spells", {"spell"}), ("gear", {"gear", "equipment"})):  # fmt: skip
            if types & names:
                return role
        return None
    if types & {"hero", "equipment", "weapon", "token"}:
        return None
    if "defense" in types or ("reaction" in types and "attack" not in types):
        return "defense_reactions"
    if "instant" in types:
        return "instants"
    if "attack" in types:
        return "attacks"
    return "actions" if "action" in types else None


def _structural_filter(spec: DeckSpec) -> Filter:
    if spec.game == "mtg" and spec.format:
        return {"card_mtg_legal_formats": spec.format}
    if spec.game == "fab" and spec.hero:
        return {"card_legal_heroes": [spec.hero]}
    return None  # Riftbound: one format per collection, domains checked below


def is_eligible(card: dict, spec: DeckSpec) -> bool:
    if spec.game == "mtg":  # no colours: any card, but under a colourless commander only colourless ones
        return not (spec.colors or spec.commander) or set(card.get("card_mtg_color_identity") or []) <= set(spec.colors)
    if spec.game == "riftbound":
        return not spec.domains or set(card.get("card_domains") or []) <= set(spec.domains)
    return True


def eligible_pool(store: VectorStore, collection: str, spec: DeckSpec) -> list[dict]:
    """Payloads of the cards legal for the spec (format, color identity ⊆ colors, hero, domains)."""
    pool = [p.payload for p in store.scroll(collection, filter=_structural_filter(spec), with_vectors=False)]
    return [card for card in pool if card.get("kind", "card") == "card" and is_eligible(card, spec)]


def fetch_inspiration_decklists(store: VectorStore, embedder, collection: str, question: str, spec: DeckSpec,
                                limit: int = INSPIRATION_LIMIT) -> list[dict]:  # fmt: skip
    """Up to 5 tournament decklists of the format, closest to the question (dense + sparse)."""
    query_filter = {"meta_type": "tournament_deck", **({"meta_format": spec.format.lower()} if spec.format else {})}
    hits = store.search_dense(collection, embedder.embed_query(question), limit=limit, filter=query_filter)
    hits += store.search_sparse(collection, query_vector(question), limit=limit, filter=query_filter)
    decks, seen = [], set()
    for hit in sorted(hits, key=lambda h: -h.score):
        if hit.id not in seen:
            seen.add(hit.id)
            decks.append(hit.payload)
    return decks[:limit]


def inspiration_counts(decklists: Iterable[dict]) -> Counter:
    """How many copies of each card (folded name) the inspiration decklists play in total."""
    counts: Counter = Counter()
    for deck in decklists:
        for entries in (deck.get("sections") or {}).values():
            for quantity, name in entries:
                counts[fold_name(name)] += int(quantity)
    return counts


def rank_key(card: dict, anchors: set[str], inspiration: Counter, synergy: dict[str, float]):
    """Anchors, then cards the inspiration lists play most, then Magic cards of the deck's colors
    before colorless ones, then synergy score."""
    name = fold_name(card.get("card_name", ""))
    colorless = card.get("card_mtg_color_identity") == [] and bool(card.get("card_mtg_legal_formats"))
    return (name not in anchors, -inspiration.get(name, 0), colorless, -synergy.get(name, 0.0), name)


def select_role_candidates(pool: list[dict], spec: DeckSpec, anchors: Iterable[dict] = (), inspiration: Counter | None = None,
                           synergy: dict[str, float] | None = None, cap: int = ROLE_CAP) -> dict[str, list[dict]]:  # fmt: skip
    """Role → up to `cap` candidates: anchors, then cards of the inspiration lists, then the best synergy."""
    anchor_names = {fold_name(a.get("card_name", "")) for a in anchors}
    inspiration, synergy = inspiration or Counter(), synergy or {}
    by_role: dict[str, list[dict]] = {}
    for card in pool:
        role = role_of(card, spec.game)
        if role:
            by_role.setdefault(role, []).append(card)
    return {
        role: sorted(cards, key=lambda c: rank_key(c, anchor_names, inspiration, synergy))[:cap]
        for role, cards in by_role.items()
    }
