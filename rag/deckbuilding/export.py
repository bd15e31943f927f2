"""Deck exports: plain text (MTGO/most sites), MTGO `.dek` XML, and MTG Arena import text."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from rag.cards import english_basic

from .parse_validate import ParsedDeck


def front_face(name: str) -> str:
    """Arena and MTGO name a double-faced or split card by its front face."""
    return name.split(" // ")[0]


# Titles the plain-text parser (games.decklists) reads back as the same sections.
TEXT_TITLES = {"companion": "Companion", "sideboard": "Sideboard", "hero": "Hero", "legend": "Legend", "equipment": "Equipment",
               "runes": "Runes", "battlefields": "Battlefields"}  # fmt: skip


def to_text(deck: ParsedDeck) -> str:
    """The main deck, then every other section under its title (a FAB hero and equipment too)."""
    lines = [f"{q} {name}" for q, name in deck.sections.get("main", [])]
    for section in [*TEXT_TITLES, *(s for s in deck.sections if s not in TEXT_TITLES and s != "main")]:
        if deck.sections.get(section):
            lines += ["", TEXT_TITLES.get(section, section.capitalize())]
            lines += [f"{q} {name}" for q, name in deck.sections[section]]
    return "\n".join(lines) + "\n"


def in_english(entries: list[tuple[int, str]], cards: dict[str, dict]) -> list[tuple[int, str, dict]]:
    """A section as Arena and MTGO read it: each card by its catalog's English name (its front
    face), a French basic by its English one, and one line a card, its copies added up
    (« 4 Drakôn de l'Académie » and « 2 Academy Drake » are 6 Academy Drake); with the card."""
    merged: dict[str, list] = {}
    for quantity, name in entries:
        card = cards.get(name) or {}
        english = front_face(card.get("card_name") or english_basic(name) or name)
        if english in merged:
            merged[english][0] += quantity
            merged[english][1] = merged[english][1] or card  # a spelling the catalog knows gives the set
        else:
            merged[english] = [quantity, card]
    return [(quantity, english, card) for english, (quantity, card) in merged.items()]


def to_arena(deck: ParsedDeck, cards: dict[str, dict] | None = None) -> str:
    """`Companion` (when there is one) / `Deck` / `Sideboard` blocks of `N Name (SET) number` lines (set and number when known)."""
    cards = cards or {}

    def block(section: str) -> list[str]:
        lines = []
        for quantity, name, card in in_english(deck.sections.get(section, []), cards):
            number = (card.get("attributes") or {}).get("collector_number", "")
            lines.append(f"{quantity} {name}" + (f" ({card['set'].upper()}) {number}" if card.get("set") and number else ""))
        return lines

    lines = ["Companion"] + block("companion") + [""] if deck.sections.get("companion") else []
    lines += ["Deck"] + block("main")
    if deck.sections.get("sideboard"):
        lines += ["", "Sideboard"] + block("sideboard")
    return "\n".join(lines) + "\n"


def to_mtgo_dek(deck: ParsedDeck, cards: dict[str, dict] | None = None) -> str:
    """The XML MTGO imports (CatID is the card's MTGO id when the catalog has it)."""
    cards = cards or {}
    rows = []
    for section, sideboard in (("main", "false"), ("sideboard", "true")):
        for quantity, name, card in in_english(deck.sections.get(section, []), cards):
            cat_id = (card.get("attributes") or {}).get("mtgo_id") or 0
            rows.append(f'  <Cards CatID="{cat_id}" Quantity="{quantity}" Sideboard="{sideboard}" Name={quoteattr(name)} />')
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
        "  <NetDeckID>0</NetDeckID>\n  <PreconstructedDeckID>0</PreconstructedDeckID>\n"
        + "\n".join(rows)
        + "\n</Deck>\n"
    )


def exports_for(game: str, deck: ParsedDeck, cards: dict[str, dict] | None = None) -> dict[str, str]:
    exports = {"text": to_text(deck)}
    if game == "mtg":
        exports["arena"] = to_arena(deck, cards)
        exports["mtgo_dek"] = to_mtgo_dek(deck, cards)
    return exports
