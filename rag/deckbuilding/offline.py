"""Deck without an LLM: fill each role of the spec with the best candidates (anchors first,
then cards of the inspiration lists, then synergy score), within the copy limit; Magic lands
are the pool's on-color lands plus basics split by the mana symbols of the spells. Only the
lands role takes basics: a role the pool cannot fill stays short and the verdict says so."""

from __future__ import annotations

import re
from collections import Counter

from rag.cards import fold_name

from . import wording
from .parse_validate import ParsedDeck, card_copy_limit
from .pool import card_types, role_of
from .spec import ROLES, DeckSpec

BASIC_BY_COLOR = {"W": "Plains", "U": "Island", "B": "Swamp", "R": "Mountain", "G": "Forest"}
NONBASIC_LAND_SHARE = 3  # at most a third of the lands are non-basic
SIDEBOARD_COPIES = 3


class _Builder:
    def __init__(self, spec: DeckSpec, cards_by_name: dict[str, dict] | None = None):
        self.spec = spec
        self.cards_by_name = cards_by_name or {}
        self.copies: Counter = Counter()
        self.deck = ParsedDeck()
        self.role_counts: Counter = Counter()
        self.role_entries: dict[str, list[list]] = {role: [] for role in spec.roles}

    def room(self, role: str) -> int:
        return self.spec.roles.get(role, 0) - self.role_counts[role]

    def limit(self, name: str) -> int:
        """The spec's copy limit, but one of a card restricted in the format (Vintage)."""
        return min(self.spec.max_copies, card_copy_limit(self.spec, self.cards_by_name.get(name)))

    def available(self, name: str) -> int:
        return self.limit(name) - self.copies[name]

    def put(self, role: str, name: str, quantity: int) -> int:
        quantity = min(quantity, self.room(role), self.available(name))
        if quantity <= 0:
            return 0
        self.copies[name] += quantity
        self.role_counts[role] += quantity
        entries = self.role_entries[role]
        for entry in entries:
            if entry[1] == name:
                entry[0] += quantity
                break
        else:
            entries.append([quantity, name])
        return quantity

    def lead(self, card: dict) -> None:
        """The commander: one of the deck's cards, outside its roles (one fewer in the role it
        would fill) and never again in them."""
        role = role_of(card, self.spec.game)
        role = role if self.spec.roles.get(role) else max(self.spec.roles, key=self.spec.roles.get)
        self.spec.roles[role] -= 1
        self.copies[card["card_name"]] = self.limit(card["card_name"])

    def fill(self, role: str, cards: list[dict], per_card: int | None = None) -> None:
        for card in cards:
            if self.room(role) <= 0:
                return
            self.put(role, card["card_name"], per_card or self.spec.max_copies)


def _mana_symbols(cards_by_name: dict[str, dict], entries) -> Counter:
    symbols: Counter = Counter()
    for quantity, name in entries:
        for symbol in re.findall(r"\{([WUBRG])\}", cards_by_name.get(name, {}).get("cost", "")):
            symbols[symbol] += quantity
    return symbols


def _deck_colors(spec: DeckSpec, chosen: list[dict]) -> list[str]:
    if spec.colors:
        return list(spec.colors)
    return sorted({c for card in chosen for c in card.get("card_mtg_color_identity") or []}) or []


def _mtg_lands(builder: _Builder, spec: DeckSpec, candidates: dict[str, list[dict]], cards_by_name: dict) -> None:
    spells = [entry for role, entries in builder.role_entries.items() if role != "lands" for entry in entries]
    colors = _deck_colors(spec, [cards_by_name[n] for _, n in spells if n in cards_by_name])
    nonbasic_room = builder.room("lands") // NONBASIC_LAND_SHARE
    for land in candidates.get("lands", []):
        identity = set(land.get("card_mtg_color_identity") or [])
        if nonbasic_room <= 0:
            break
        if len(identity) > 1 and identity <= set(colors):
            nonbasic_room -= builder.put("lands", land["card_name"], min(spec.max_copies, nonbasic_room))
    symbols = _mana_symbols(cards_by_name, spells)
    if spec.commander:  # a mandatory card outside the commander's identity brings no basics of its colour
        symbols = Counter({c: n for c, n in symbols.items() if c in colors})
    symbols = symbols or Counter({c: 1 for c in colors})
    room = builder.room("lands")
    if not symbols:
        builder.role_entries["lands"].append([room, "Wastes"])
        builder.role_counts["lands"] += room
        return
    total = sum(symbols.values())
    shares = {c: room * n // total for c, n in symbols.items()}
    shares[max(symbols, key=symbols.get)] += room - sum(shares.values())
    for color, count in sorted(shares.items(), key=lambda kv: -kv[1]):
        if count:
            builder.role_entries["lands"].append([count, BASIC_BY_COLOR[color]])
            builder.role_counts["lands"] += count


def _overflow(builder: _Builder, spec: DeckSpec, candidates: dict[str, list[dict]]) -> None:
    """A role the pool could not fill lends its room to the other spell roles. What none can
    fill stays missing: padding it with basic lands made a deck of only lands look legal."""
    roles = [role for role in spec.roles if role != "lands"]
    for role in roles:
        missing = builder.room(role)
        if missing <= 0:
            continue
        spec.roles[role] -= missing
        for other in roles:
            if other == role:
                continue
            spec.roles[other] += missing
            builder.fill(other, candidates.get(other, []))
            missing = builder.room(other)
            spec.roles[other] -= missing
            if missing <= 0:
                break


def _sideboard(builder: _Builder, spec: DeckSpec, candidates: dict[str, list[dict]]) -> list[list]:
    entries, room = [], spec.sideboard
    ranked = [c for role in spec.roles if role != "lands" for c in candidates.get(role, [])]
    ranked.sort(key=lambda c: builder.copies[c["card_name"]] > 0)  # new cards before more copies
    for card in ranked:
        if room <= 0:
            break
        quantity = min(SIDEBOARD_COPIES, builder.available(card["card_name"]), room)
        if quantity > 0:
            builder.copies[card["card_name"]] += quantity
            entries.append([quantity, card["card_name"]])
            room -= quantity
    return entries  # short when the pool is: no basic lands in the sideboard, the verdict says so


def _spread(cards: list[dict], total: int, distinct: bool = False) -> list[list]:
    if not cards or total <= 0:
        return []
    if distinct:
        return [[1, card["card_name"]] for card in cards[:total]]
    share, extra = divmod(total, len(cards))
    return [[share + (i < extra), card["card_name"]] for i, card in enumerate(cards) if share + (i < extra)]


SECTION_HEADINGS = (("commander", "Commandant"), ("hero", "Héros"), ("legend", "Légende"), ("equipment", "Équipement"))


def anchor_section(card: dict, game: str) -> str | None:
    """The section outside the main deck a mandatory card goes to: a FAB hero or equipment,
    a Riftbound legend (no role holds them, yet the deck needs them)."""
    types = card_types(card)
    if game == "fab":
        return "hero" if "hero" in types else "equipment" if types & {"equipment", "weapon"} else None
    return "legend" if game == "riftbound" and role_of(card, game) == "legend" else None


def build_offline_deck(spec: DeckSpec, candidates: dict[str, list[dict]], anchors: list[dict]) -> ParsedDeck:
    spec = spec.model_copy(deep=True)
    cards_by_name = {c["card_name"]: c for cards in candidates.values() for c in cards}
    cards_by_name.update({a["card_name"]: a for a in anchors})
    builder = _Builder(spec, cards_by_name)
    outside = [(anchor_section(a, spec.game), a["card_name"]) for a in anchors if anchor_section(a, spec.game)]
    leaders = [cards_by_name[name] for name in spec.leaders if name in cards_by_name]
    for leader in reversed(leaders):  # one of the 100 (a pair: two), in its own section
        builder.lead(leader)
        outside.insert(0, ("commander", leader["card_name"]))
    for anchor in anchors:
        role = role_of(anchor, spec.game)
        if role in spec.roles:
            builder.put(role, anchor["card_name"], spec.max_copies)
    for role in spec.roles:
        if role != "lands":
            builder.fill(role, candidates.get(role, []))
    _overflow(builder, spec, candidates)
    if "lands" in spec.roles:
        _mtg_lands(builder, spec, candidates, cards_by_name)
    deck = ParsedDeck()
    for section, name in outside:  # a commander, one hero, one legend, one of each equipment
        deck.add(section, 1, name)
    for role, entries in builder.role_entries.items():
        for quantity, name in entries:
            deck.add("main", quantity, name, ROLES[spec.game][role])
    for quantity, name in _sideboard(builder, spec, candidates):
        deck.add("sideboard", quantity, name)
    if spec.game == "riftbound":
        runes = [c for c in candidates.get("runes", []) if not spec.domains or set(c.get("card_domains") or []) <= set(spec.domains)]
        for quantity, name in _spread(runes, spec.runes):
            deck.add("runes", quantity, name)
        for quantity, name in _spread(candidates.get("battlefields", []), spec.battlefields, distinct=True):
            deck.add("battlefields", quantity, name)
    return deck


def render_deck_markdown(deck: ParsedDeck, spec: DeckSpec, title: str, words_in: str = "fr") -> str:
    """The list as markdown, its headings in the reader's language (`words_in`)."""
    lines = [f"## {title}", ""]
    for section, heading in SECTION_HEADINGS:
        if deck.sections.get(section):
            lines.append(f"### {wording.label(heading, words_in)} ({deck.total(section)})")
            lines.extend(f"- {q}× [[card:{name}]]" for q, name in deck.sections[section])
            lines.append("")
    for role, entries in deck.roles.items():
        lines.append(f"### {wording.label(role, words_in)} ({sum(q for q, _ in entries)})")
        lines.extend(f"- {q}× [[card:{name}]]" for q, name in entries)
        lines.append("")
    for section, heading in (("sideboard", "Sideboard"), ("runes", "Runes"), ("battlefields", "Champs de bataille")):
        entries = deck.sections.get(section, [])
        if entries or (section in spec.section_sizes() and spec.section_sizes()[section]):
            lines.append(f"### {wording.label(heading, words_in)} ({sum(q for q, _ in entries)})")
            lines.extend(f"- {q}× [[card:{name}]]" for q, name in entries)
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def anchor_names(anchors: list[dict]) -> set[str]:
    return {fold_name(a.get("card_name", "")) for a in anchors}
