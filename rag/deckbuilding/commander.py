"""The rules a Commander or Brawl deck adds to its size and copy limit (Comprehensive Rules
903): its commander may lead a deck (a legendary creature; in Brawl a legendary planeswalker
too; or a card that says it « can be your commander »), and every other card stays within the
commander's colour identity (a partner pair: the union of both). A basic land's identity is
its colour (« Forêt » is green: a mono-red deck cannot play it)."""

from __future__ import annotations

from rag.cards import english_basic, fold_name, is_basic_land

from . import wording
from .parse_validate import ParsedDeck
from .spec import DeckSpec

COMMANDER_FORMATS = frozenset({"commander", "duel", "brawl", "standardbrawl"})
BRAWL_FORMATS = frozenset({"brawl", "standardbrawl"})
MAX_COMMANDERS = 2  # a partner pair; a third is never allowed
BASIC_IDENTITY = {"plains": ["W"], "island": ["U"], "swamp": ["B"], "mountain": ["R"], "forest": ["G"], "wastes": []}


def has_commander(spec: DeckSpec) -> bool:
    return spec.game == "mtg" and spec.format in COMMANDER_FORMATS


def commander_verdict(deck: ParsedDeck, spec: DeckSpec, cards: dict[str, dict], words_in: str = "fr") -> tuple[list[str], list[str]]:
    """(issues, warnings) of a Commander or Brawl list, read from its `Commander` section;
    `cards`: the catalog's payload of each name as written (a name it does not know is not
    judged: the unknown-card warning names it). Without a commander section the identity
    cannot be checked, and a warning says so."""
    if not has_commander(spec):
        return [], []
    leaders = [name for _, name in deck.sections.get("commander", [])]
    if not leaders:
        return [], [wording.text("no_commander", words_in)]
    issues = [wording.text("cannot_lead", words_in, name=name, format=spec.format)
              for name in leaders if name in cards and not can_lead(cards[name], spec.format)]  # fmt: skip
    if len(leaders) > MAX_COMMANDERS:
        issues.append(wording.text("too_many_commanders", words_in, count=len(leaders)))
    if any(name not in cards for name in leaders):  # whose identity is not known: not judged
        return issues, []
    allowed = {colour for name in leaders for colour in cards[name].get("card_mtg_color_identity") or []}
    for section in ("main", "sideboard"):
        for _, name in deck.sections.get(section, []):
            identity = identity_of(name, cards)
            if identity is not None and not set(identity) <= allowed:
                issues.append(wording.text("outside_identity", words_in, name=name,
                                           colors=_colours(set(identity) - allowed, words_in),
                                           identity=_colours(allowed, words_in)))  # fmt: skip
    return issues, []


def _colours(codes: set[str], words_in: str) -> str:
    return ", ".join(wording.color(c, words_in) for c in "WUBRG" if c in codes) or wording.text("colourless", words_in)


def leader_of(anchors, spec: DeckSpec) -> dict | None:
    """The mandatory card a Commander or Brawl deck the Oracle builds is led by: the first
    one that can lead (« un deck Commander autour de @Naban »); None in any other format."""
    if not has_commander(spec):
        return None
    return next((card for card in anchors if can_lead(card, spec.format)), None)


def can_lead(card: dict, format: str) -> bool:
    type_line = fold_name(card.get("type") or "")
    front = type_line.split("//")[0]  # a double-faced card leads by its front face
    if "legendary" in front and ("creature" in front or (format in BRAWL_FORMATS and "planeswalker" in front)):
        return True
    return "can be your commander" in (card.get("oracle_text") or "").lower()


def identity_of(name: str, cards: dict[str, dict]) -> list[str] | None:
    """A card's colour identity by the catalog, a basic land's by its colour (French or
    English, snow or not); None when the catalog does not know the card."""
    if is_basic_land(name):
        english = fold_name(english_basic(name) or name).removeprefix("snow-covered ")
        return BASIC_IDENTITY.get(english)
    return cards[name].get("card_mtg_color_identity") if name in cards else None
