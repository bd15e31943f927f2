"""The rules a Commander or Brawl deck adds to its size and copy limit (Comprehensive Rules
903): its commander may lead a deck (a legendary creature; in Brawl a legendary planeswalker
too; or a card that says it « can be your commander »), two commanders only as a pair their
texts allow (Partner, Friends forever, « Choose a Background » with a Background, « Doctor's
companion » with a Doctor), and every other card stays within the commanders' colour
identity. A basic land's identity is its colour (« Forêt » is green: a mono-red deck cannot
play it); a Brawl deck led by a colourless commander may play basics of one type."""

from __future__ import annotations

import re

from rag.cards import basic_type, fold_name

from . import wording
from .offline import BASIC_BY_COLOR
from .parse_validate import ParsedDeck
from .spec import DeckSpec

COMMANDER_FORMATS = frozenset({"commander", "duel", "brawl", "standardbrawl"})
BRAWL_FORMATS = frozenset({"brawl", "standardbrawl"})
MAX_COMMANDERS = 2  # a pair; a third is never allowed
BASIC_IDENTITY = {fold_name(name): [colour] for colour, name in BASIC_BY_COLOR.items()} | {"wastes": []}
JUDGED_SECTIONS = ("main", "sideboard", "companion")
# A card that is a creature wherever it is but on the battlefield (Grist, the Hunger Tide).
_CREATURE_OFF_BATTLEFIELD = re.compile(r"isn't on the battlefield, it's a [^.]*creature", re.IGNORECASE)


def has_commander(spec: DeckSpec) -> bool:
    return spec.game == "mtg" and spec.format in COMMANDER_FORMATS


def commander_verdict(deck: ParsedDeck, spec: DeckSpec, cards: dict[str, dict], words_in: str = "fr") -> tuple[list[str], list[str]]:
    """(issues, warnings) of a Commander or Brawl list, read from its `Commander` section;
    `cards`: the catalog's payload of each name as written (a name it does not know is not
    judged: the unknown-card warning names it). Without a commander section the identity
    cannot be checked, and a warning says so. Each commander the spec names (the Oracle chose
    it, or the pair, for the list it builds) missing from that section is an issue."""
    if not has_commander(spec):
        return [], []
    leaders = [name for _, name in deck.sections.get("commander", [])]
    listed = {fold_name(name) for name in leaders}
    missing = [wording.text("commander_missing", words_in, name=name, count=len(spec.leaders))
               for name in spec.leaders if fold_name(name) not in listed]  # fmt: skip
    if not leaders:
        return (missing, []) if missing else ([], [wording.text("no_commander", words_in)])
    issues = missing + _leader_issues(leaders, spec, cards, words_in)
    if any(name not in cards for name in leaders):  # whose identity is not known: not judged
        return issues, []
    allowed = identity_union(cards[name] for name in leaders)
    return issues + _identity_issues(deck, spec, cards, allowed, words_in), []


def _leader_issues(leaders: list[str], spec: DeckSpec, cards: dict[str, dict], words_in: str) -> list[str]:
    known = [cards[name] for name in leaders if name in cards]
    issues = [wording.text("cannot_lead", words_in, name=card["card_name"], format=spec.format)
              for card in known if not can_lead(card, spec.format, beside=[c for c in known if c is not card])]  # fmt: skip
    if len(leaders) > MAX_COMMANDERS:
        issues.append(wording.text("too_many_commanders", words_in, count=len(leaders)))
    elif len(known) == MAX_COMMANDERS and not issues and not pair_allowed(*known):
        issues.append(wording.text("not_a_pair", words_in, first=known[0]["card_name"], second=known[1]["card_name"]))
    return issues


def _identity_issues(deck: ParsedDeck, spec: DeckSpec, cards: dict[str, dict], allowed: set[str], words_in: str) -> list[str]:
    issues, basic_types = [], set()
    for section in JUDGED_SECTIONS:
        for _, name in deck.sections.get(section, []):
            identity = identity_of(name, cards)
            if identity is None or set(identity) <= allowed:
                continue
            if not allowed and spec.format in BRAWL_FORMATS and (basic := basic_type(name)):
                basic_types.add(basic)  # a colourless Brawl commander: basics of one type
                continue
            issues.append(wording.text("outside_identity", words_in, name=name, colors=_colours(set(identity) - allowed, words_in),
                                       identity=_colours(allowed, words_in)))  # fmt: skip
    if len(basic_types) > 1:
        issues.append(wording.text("one_basic_type", words_in, types=", ".join(sorted(basic_types))))
    return issues


def _colours(codes: set[str], words_in: str) -> str:
    return ", ".join(wording.color(c, words_in) for c in "WUBRG" if c in codes) or wording.text("colourless", words_in)


def _text(card: dict) -> str:
    return card.get("oracle_text") or ""


def can_lead(card: dict, format: str, beside: list[dict] = ()) -> bool:
    """Whether `card` may be a commander in `format`; `beside`: the other commander, which
    lets a Background lead with a « Choose a Background » commander."""
    front = fold_name(card.get("type") or "").split("//")[0]  # a double-faced card leads by its front face
    if "legendary" in front and ("creature" in front or (format in BRAWL_FORMATS and "planeswalker" in front)):
        return True
    if "background" in front and any("choose a background" in _text(other).lower() for other in beside):
        return True
    text = _text(card)
    return "can be your commander" in text.lower() or bool("legendary" in front and _CREATURE_OFF_BATTLEFIELD.search(text))


_PARTNER = re.compile(r"\bpartner\b(?!\s+with\b)(?!\s*[—–-])", re.IGNORECASE)  # plain Partner, not « Partner with X », « Partner—Survivors »
_PARTNER_KIND = re.compile(r"\bpartner\s*[—–-]\s*([^(\n]+)", re.IGNORECASE)
_PARTNER_WITH = re.compile(r"\bpartner with ([^(\n]+?)\s*(?:\(|\n|$)", re.IGNORECASE)


def pair_allowed(first: dict, second: dict) -> bool:
    """Two commanders whose texts allow them to lead together (702.124: Partner; « Partner
    with X » only with X)."""
    texts, types = [_text(c).lower() for c in (first, second)], [fold_name(c.get("type") or "") for c in (first, second)]
    if all(_PARTNER.search(t) for t in texts) or all("friends forever" in t for t in texts):
        return True
    kinds = [_PARTNER_KIND.search(t) for t in texts]  # « Partner—Survivors » pairs with its kind
    if all(kinds) and kinds[0].group(1).strip() == kinds[1].group(1).strip():
        return True
    for one, other in ((first, second), (second, first)):
        named = _PARTNER_WITH.search(_text(one))
        if named and fold_name(named.group(1)) == fold_name(other.get("card_name") or ""):
            return True
    for one, other in ((0, 1), (1, 0)):
        if "choose a background" in texts[one] and "background" in types[other]:
            return True
        if "doctor's companion" in texts[one] and "doctor" in types[other]:
            return True
    return False


def identity_of(name: str, cards: dict[str, dict]) -> list[str] | None:
    """A card's colour identity by the catalog, a basic land's by its colour (French or
    English, snow or not); None when the catalog does not know the card."""
    if basic := basic_type(name):
        return BASIC_IDENTITY[basic]
    return cards[name].get("card_mtg_color_identity") if name in cards else None


def _moved(deck: ParsedDeck, source: str, target: str) -> ParsedDeck:
    """`deck` with the cards of its section `source` first in `target`."""
    sections = {name: list(entries) for name, entries in deck.sections.items() if name != source}
    sections[target] = [*deck.sections[source], *sections.get(target, [])]
    return ParsedDeck(sections=sections, roles=deck.roles)


def commander_in_main(deck: ParsedDeck, spec: DeckSpec) -> ParsedDeck:
    """A `Commander` section in a format without one (a Commander export checked for
    Standard): its cards are the deck's, in the main deck (not MTGO's sideboard)."""
    return _moved(deck, "commander", "main") if deck.sections.get("commander") and not has_commander(spec) else deck


def commander_from_sideboard(deck: ParsedDeck, spec: DeckSpec, cards: dict[str, dict]) -> ParsedDeck:
    """MTGO's lists have no commander section: its commander (a pair: both) is the sideboard's
    one or two cards. In a Commander or Brawl list without a `Commander` section, a sideboard
    of one or two cards that can lead becomes it."""
    side = deck.sections.get("sideboard", [])
    if not has_commander(spec) or deck.sections.get("commander") or not 1 <= sum(q for q, _ in side) <= MAX_COMMANDERS:
        return deck
    known = [cards.get(name) for _, name in side]
    if None in known or not all(can_lead(card, spec.format, [c for c in known if c is not card]) for card in known):
        return deck
    return _moved(deck, "sideboard", "commander")


def leaders_of(anchors, spec: DeckSpec) -> list[dict]:
    """The mandatory cards a Commander or Brawl deck the Oracle builds is led by: one that can
    lead and whose colour identity holds every other mandatory card's (« un deck Commander
    autour de @Naban »); two that may lead together (« avec @Thrasios et @Tymna »: Partner, a
    Background with its chooser…) lead as a pair when they hold the others' identity, even if
    one alone would: a player names a pair to play it. None when no card or pair does (the
    pool may have one: `choose_leader`), and in any other format."""
    if not has_commander(spec):
        return []
    wanted = identity_union(anchors)
    for index, first in enumerate(anchors):  # a pair named together leads together
        for second in anchors[index + 1:]:
            pair = [first, second]
            if (pair_allowed(first, second) and wanted <= identity_union(pair)
                    and all(can_lead(card, spec.format, beside=[other]) for card, other in (pair, pair[::-1]))):
                return pair
    single = next((card for card in anchors if can_lead(card, spec.format) and wanted <= identity_union([card])), None)
    return [single] if single is not None else []


def choose_leader(pool: list[dict], spec: DeckSpec, anchors=()) -> dict | None:
    """A commander from the pool (in its order: the best first) when no mandatory card can
    lead every other: one whose identity holds the mandatory cards' and is the deck's very
    colours, else the narrowest that holds them; failing any, the mandatory card that leads,
    else the pool's legend that covers the most of the deck's colours."""
    wanted, colours = identity_union(anchors), set(spec.colors)
    leading = [card for card in pool if can_lead(card, spec.format)]
    covering = [card for card in leading if wanted <= identity_union([card])]
    exact = [card for card in covering if identity_union([card]) == colours]
    if exact or (covering and wanted):  # mandatory cards to hold: the narrowest legend that holds them
        return (exact or sorted(covering, key=lambda card: len(identity_union([card]))))[0]
    anchor_leader = next((card for card in anchors if can_lead(card, spec.format)), None)
    fitting = [card for card in leading if identity_union([card]) <= colours or not colours]
    return anchor_leader or (sorted(fitting, key=lambda card: -len(identity_union([card]))) or [None])[0]


def identity_union(cards) -> set[str]:
    """The colour identity of these cards together (of one: `[card]`)."""
    return {colour for card in cards for colour in card.get("card_mtg_color_identity") or []}
