"""Deck exports: plain text (MTGO/most sites), MTGO `.dek` XML, and MTG Arena import text."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from rag.cards import english_basic

from .parse_validate import ParsedDeck


def front_face(name: str) -> str:
    """Arena and MTGO name a double-faced, adventure or flip card by its front face."""
    return name.split(" // ")[0]


# Layouts (Scryfall's and MTGJSON's `layout`) whose card Arena names whole (« Discovery //
# Dispersal (GRN) 223 ») and MTGO with one slash (« Fire/Ice »): both halves are one card face.
SPLIT_LAYOUTS = frozenset({"split", "aftermath"})
# Sets Arena knows by another code than the printed one (Dominaria is DAR there: « Isolated
# Chapel (DAR) 241 » in an Arena export, intuited/brawlrating's test data).
ARENA_SET_CODES = {"dom": "DAR"}


def _is_split(card: dict) -> bool:
    return (card.get("attributes") or {}).get("layout") in SPLIT_LAYOUTS


def arena_name(name: str, card: dict) -> str:
    return name if _is_split(card) else front_face(name)


def mtgo_name(name: str, card: dict) -> str:
    return name.replace(" // ", "/") if _is_split(card) else front_face(name)


def arena_set(card: dict) -> str:
    return ARENA_SET_CODES.get(card["set"].lower(), card["set"].upper())


# Titles the plain-text parser (games.decklists) reads back as the same sections.
TEXT_TITLES = {"commander": "Commander", "companion": "Companion", "sideboard": "Sideboard", "hero": "Hero", "legend": "Legend", "equipment": "Equipment",
               "runes": "Runes", "battlefields": "Battlefields"}  # fmt: skip


def to_text(deck: ParsedDeck) -> str:
    """The main deck, then every other section under its title (a FAB hero and equipment too);
    a Commander deck's commander first, as Arena and Moxfield write it."""
    lines = [f"{q} {name}" for q, name in deck.sections.get("main", [])]
    if deck.sections.get("commander"):
        lines = ["Commander", *(f"{q} {name}" for q, name in deck.sections["commander"]), "", "Deck", *lines]
    others = [*TEXT_TITLES, *(s for s in deck.sections if s not in TEXT_TITLES)]
    for section in [s for s in others if s not in ("main", "commander")]:
        if deck.sections.get(section):
            lines += ["", TEXT_TITLES.get(section, section.capitalize())]
            lines += [f"{q} {name}" for q, name in deck.sections[section]]
    return "\n".join(lines) + "\n"


def in_english(entries: list[tuple[int, str]], cards: dict[str, dict]) -> list[tuple[int, str, dict]]:
    """A section as Arena and MTGO read it: each card by its catalog's English name, a French
    basic by its English one, and one line a card, its copies added up (« 4 Drakôn de
    l'Académie » and « 2 Academy Drake » are 6 Academy Drake); with the card. Each export
    then names it its own way (`arena_name`, `mtgo_name`)."""
    merged: dict[str, list] = {}
    for quantity, name in entries:
        card = cards.get(name) or {}
        english = card.get("card_name") or english_basic(name) or name
        if english in merged:
            merged[english][0] += quantity
            merged[english][1] = merged[english][1] or card  # a spelling the catalog knows gives the set
        else:
            merged[english] = [quantity, card]
    return [(quantity, english, card) for english, (quantity, card) in merged.items()]


def to_arena(deck: ParsedDeck, cards: dict[str, dict] | None = None) -> str:
    """`Commander` and `Companion` (when there are), `Deck` and `Sideboard` blocks of
    `N Name (SET) number` lines (set and number when known), as Arena exports them."""
    cards = cards or {}

    def block(section: str) -> list[str]:
        lines = []
        for quantity, name, card in in_english(deck.sections.get(section, []), cards):
            number = (card.get("attributes") or {}).get("collector_number", "")
            where = f" ({arena_set(card)}) {number}" if card.get("set") and number else ""
            lines.append(f"{quantity} {arena_name(name, card)}{where}")
        return lines

    lines = []
    for section, title in (("commander", "Commander"), ("companion", "Companion")):
        if deck.sections.get(section):
            lines += [title, *block(section), ""]
    lines += ["Deck"] + block("main")
    if deck.sections.get("sideboard"):
        lines += ["", "Sideboard"] + block("sideboard")
    return "\n".join(lines) + "\n"


def to_mtgo_dek(deck: ParsedDeck, cards: dict[str, dict] | None = None) -> str:
    """The XML MTGO imports (CatID is the card's MTGO id when the catalog has it). MTGO takes
    a Commander deck's commander from the sideboard."""
    cards = cards or {}
    rows = []
    for section, sideboard in (("main", "false"), ("commander", "true"), ("sideboard", "true")):
        for quantity, name, card in in_english(deck.sections.get(section, []), cards):
            cat_id = (card.get("attributes") or {}).get("mtgo_id") or 0
            rows.append(f'  <Cards CatID="{cat_id}" Quantity="{quantity}" Sideboard="{sideboard}" '
                        f'Name={quoteattr(mtgo_name(name, card))} />')
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
