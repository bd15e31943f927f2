"""Deck exports: plain text (MTGO/most sites), MTGO `.dek` XML, and MTG Arena import text."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

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


def to_arena(deck: ParsedDeck, cards: dict[str, dict] | None = None) -> str:
    """`Companion` (when there is one) / `Deck` / `Sideboard` blocks of `N Name (SET) number` lines (set and number when known)."""
    cards = cards or {}

    def line(quantity: int, name: str) -> str:
        card = cards.get(name) or {}
        number = (card.get("attributes") or {}).get("collector_number", "")
        where = f" ({card['set'].upper()}) {number}" if card.get("set") and number else ""
        return f"{quantity} {front_face(name)}{where}"

    lines = ["Companion"] + [line(q, n) for q, n in deck.sections["companion"]] + [""] if deck.sections.get("companion") else []
    lines += ["Deck"] + [line(q, n) for q, n in deck.sections.get("main", [])]
    if deck.sections.get("sideboard"):
        lines += ["", "Sideboard"] + [line(q, n) for q, n in deck.sections["sideboard"]]
    return "\n".join(lines) + "\n"


def to_mtgo_dek(deck: ParsedDeck, cards: dict[str, dict] | None = None) -> str:
    """The XML MTGO imports (CatID is the card's MTGO id when the catalog has it)."""
    cards = cards or {}
    rows = []
    for section, sideboard in (("main", "false"), ("sideboard", "true")):
        for quantity, name in deck.sections.get(section, []):
            cat_id = (cards.get(name, {}).get("attributes") or {}).get("mtgo_id") or 0
            rows.append(
                f'  <Cards CatID="{cat_id}" Quantity="{quantity}" Sideboard="{sideboard}" Name={quoteattr(front_face(name))} />'
            )
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
