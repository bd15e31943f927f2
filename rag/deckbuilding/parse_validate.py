"""Read a generated decklist and check it against its spec.

Only lines `N× [[card:Name]]` count (×, x or X required: prose never matches); markdown
headings choose the section (main, sideboard, runes, battlefields; commander in Magic, hero
and equipment in Flesh and Blood, legend in Riftbound), by whole words. Validation: exact total
per section, copy limit per card (basic lands exempt; one copy of a restricted card, a card's
own number where its text gives one; a card's spellings, French name and front face count
together), anchors present; cards unknown to the catalog are warnings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from rag.cards import card_names, fold_name, is_basic_land
from rag.synergy import FORMATS

from . import wording
from .spec import DeckSpec

CARD_LINE_RE = re.compile(r"^\s*(?:[-*•]\s*)?(\d{1,3})\s*[×xX]\s*\[\[card:([^\]|]+)(?:\|[^\]]*)?\]\]")
HEADING_RE = re.compile(r"^\s*(?:#{1,6}\s*(.+?)|\*\*(.+?)\*\*:?|([^\s#*].{0,40}):)\s*$")
SECTION_WORDS = (
    ("sideboard", ("sideboard", "side", "réserve", "reserve")),
    ("runes", ("rune",)),
    ("battlefields", ("battlefield", "champs de bataille", "champ de bataille")),
)


@dataclass
class ParsedDeck:
    sections: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    roles: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # main-deck headings

    def total(self, section: str) -> int:
        return sum(q for q, _ in self.sections.get(section, []))

    def copies(self) -> dict[str, int]:
        """Copies per card name as written, over the commander, main deck and sideboard."""
        counts: dict[str, int] = {}
        for section in ("commander", "main", "sideboard"):
            for quantity, name in self.sections.get(section, []):
                counts[name] = counts.get(name, 0) + quantity
        return counts

    def copies_per_card(self, key: Callable[[str], str]) -> dict[str, tuple[str, int]]:
        """Card key → (first name written, copies) over main deck and sideboard: the copy limit
        spans both and holds per card, not per spelling (« opt », « Option » are Opt)."""
        counts: dict[str, tuple[str, int]] = {}
        for name, quantity in self.copies().items():
            first, count = counts.get(key(name), (name, 0))
            counts[key(name)] = (first, count + quantity)
        return counts

    def names(self) -> set[str]:
        return {fold_name(name) for entries in self.sections.values() for _, name in entries}

    def add(self, section: str, quantity: int, name: str, role: str = "") -> None:
        self.sections.setdefault(section, []).append((quantity, name))
        if section == "main" and role:
            self.roles.setdefault(role, []).append((quantity, name))


# Commander, hero, legend and equipment sections exist only in their game: a Magic heading
# « Créatures légendaires » is main-deck creatures, as Riftbound's « Équipements » is its gear role.
GAME_SECTIONS = {
    "mtg": (("commander", ("commandant", "commander")),),
    "fab": (("hero", ("héros", "hero")), ("equipment", ("équipement", "equipment", "arme", "weapon"))),
    "riftbound": (("legend", ("légende", "legend")),),
}


def _has_word(folded: str, word: str) -> bool:
    """`word` (or its plural) as a whole word: « side » is not in « inside », « légende » not in « légendaires »."""
    return re.search(rf"(?<!\w){re.escape(fold_name(word))}s?(?!\w)", folded) is not None


# A commander heading is the word alone (« Commandant (1) »): « Synergies avec le commandant »
# is the main deck's, and its cards are not commanders.
_COMMANDER_HEADING = re.compile(
    r"^\W*(?:(?:le|la|les|votre|ton|the|your)\s+)?(?:commandant|commander)s?\s*(?:\([12](?: cartes?| cards?)?\))?"
    r"\s*(?:[:—–-]\s*(?!.*\b(?:cartes?|cards?|soutiens?|support|synergies?|ramp)\b)[^()]*(?:\([12]\))?)?$"
)  # « Commandant (1) », « Le commandant (1 carte) », « 👑 Commander : Naban », not « Commander: ramp cards (10) »


def _section_of(heading: str, game: str = "") -> str:
    folded = fold_name(heading).strip()
    for section, words in SECTION_WORDS + GAME_SECTIONS.get(game, ()):
        if section == "commander":
            if _COMMANDER_HEADING.match(folded):
                return section
        elif any(_has_word(folded, word) for word in words):
            return section
    return "main"


def parse_deck_response(text: str, game: str = "") -> ParsedDeck:
    deck = ParsedDeck()
    section, role = "main", ""
    for line in text.splitlines():
        card = CARD_LINE_RE.match(line)
        if card:
            deck.add(section, int(card.group(1)), card.group(2).strip(), role)
            continue
        heading = HEADING_RE.match(line)
        if heading:
            title = next(g for g in heading.groups() if g)
            section = _section_of(title, game)
            role = re.sub(r"\s*\(\d+\)\s*$", "", title).strip()
    return deck


def front_face_key(name: str) -> str:
    """A card's key without the catalog: its folded front face (a double-faced card written
    whole or by its front face is one card)."""
    return fold_name(re.split(r"\s*//\s*", name)[0])


def card_key_from(cards: Iterable[dict]) -> Callable[[str], str]:
    """A card key that knows these cards' other names: English, French and front face all
    lead to the English name's key; other names fall back to `front_face_key`."""
    keys = {fold_name(alias): front_face_key(card["card_name"]) for card in cards if card.get("card_name")
            for alias in card_names(card)}  # fmt: skip
    return lambda name: keys.get(fold_name(name)) or front_face_key(name)


@dataclass
class Verdict:
    valid: bool
    issues: list[str]
    warnings: list[str]
    totals: dict[str, int]

    def as_dict(self) -> dict:
        return {"valid": self.valid, "issues": self.issues, "warnings": self.warnings, "totals": self.totals}


SECTION_LABELS = {"main": "Deck principal", "sideboard": "Sideboard", "runes": "Deck de runes",
                  "battlefields": "Champs de bataille"}  # fmt: skip


def format_legality(spec: DeckSpec, legal_formats: Callable[[str], Iterable[str] | None]) -> Callable[[str], bool] | None:
    """`validate_deck`'s `legal`: whether a name may be played in the spec's Magic format, by
    the catalogue's legalities (`legal_formats(name)`: Scryfall's and MTGJSON's format keys). A
    card the catalogue does not know, or knows without legalities, is not judged (unknown cards
    have their own warning); None where no legality key applies (another game, no format)."""
    if spec.game != "mtg" or spec.format not in FORMATS:
        return None

    def legal(name: str) -> bool:
        formats = legal_formats(name)
        return not formats or spec.format in formats

    return legal


# « A deck can have any number of cards named Relentless Rats. », « … up to seven cards named
# Seven Dwarves. »: the card's own exception to the copy limit (rule 100.2a), in its English text.
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
OWN_LIMIT_RE = re.compile(rf"\bA deck can have (?:any number of|up to ({'|'.join(NUMBER_WORDS)})) cards named\b", re.IGNORECASE)
ANY_NUMBER = 10_000


def card_copy_limit(spec: DeckSpec, card: dict | None) -> int:
    """How many copies of `card` (a card payload, None if unknown) a deck of the spec may hold:
    one in a format where it is restricted (Vintage), its own number where its text gives one
    (any, seven, nine), else the spec's `max_copies`."""
    card = card or {}
    if spec.format and spec.format in (card.get("attributes") or {}).get("restricted_in", []):
        return 1
    own = OWN_LIMIT_RE.search(card.get("oracle_text") or "")
    if own:
        return NUMBER_WORDS[own.group(1).lower()] if own.group(1) else ANY_NUMBER
    return spec.max_copies


def copy_limits(spec: DeckSpec, card_of: Callable[[str], dict | None]) -> Callable[[str], int]:
    """`validate_deck`'s `limit`: the copy limit of a name, by its catalog card (`card_of(name)`)."""
    return lambda name: card_copy_limit(spec, card_of(name))


def validate_deck(
    deck: ParsedDeck,
    spec: DeckSpec,
    anchors: Iterable[dict] = (),
    known: Callable[[str], bool] | None = None,
    card_key: Callable[[str], str] = front_face_key,
    words_in: str = "fr",
    *,
    legal: Callable[[str], bool] | None = None,
    limit: Callable[[str], int] | None = None,
    by_the_rules: bool = False,
) -> Verdict:
    """`card_key`: the catalog card a name stands for (copies are counted per card).
    `words_in`: the reader's language of the issues and warnings (rag.deckbuilding.wording).
    A built deck must have each section's exact size (the reference's rule: the list is made
    to that target). `by_the_rules`, for a player's own list: a constructed deck holds at
    least its main size and at most its sideboard's (`DeckSpec.section_bounds`). `legal`:
    whether a card may be played in the spec's format (a card it says no to is an issue), basic
    lands included (Snow-Covered Forest is not legal in Standard). `limit`: a card's own copy
    limit (`copy_limits`), else the spec's `max_copies`."""
    warnings = []
    totals = {section: deck.total(section) for section in spec.section_sizes()}
    totals["main"] += deck.total("commander")  # a Commander deck's 100 cards count its commander
    issues = _size_issues(totals, spec.section_bounds(by_the_rules), words_in)
    for name, count in sorted(deck.copies_per_card(card_key).values()):
        most = limit(name) if limit is not None else spec.max_copies
        if count > most and not is_basic_land(name):
            issues.append(wording.text("too_many", words_in, name=name, count=count, max=most))
    if legal is not None:
        banned = sorted({n for entries in deck.sections.values() for _, n in entries if not legal(n)})
        issues += [wording.text("not_legal", words_in, name=name, format=spec.format) for name in banned]
    present = deck.names()
    for anchor in anchors:
        aliases = {fold_name(n) for n in (anchor.get("card_name", ""), anchor.get("card_name_fr", "")) if n}
        if not aliases & present:
            issues.append(wording.text("anchor_missing", words_in, name=anchor.get("card_name")))
    if known is not None:
        unknown = sorted({n for entries in deck.sections.values() for _, n in entries if not is_basic_land(n) and not known(n)})
        warnings += [wording.text("unknown_card", words_in, name=name) for name in unknown]
    return Verdict(valid=not issues, issues=issues, warnings=warnings, totals=totals)


def _size_issues(totals: dict[str, int], bounds: dict[str, tuple[int, int]], words_in: str) -> list[str]:
    issues = []
    for section, (least, most) in bounds.items():
        count, label = totals[section], wording.label(SECTION_LABELS[section], words_in)
        if least == most and count != least:
            issues.append(wording.text("section_size", words_in, label=label, count=count, wanted=least))
        elif count < least:
            issues.append(wording.text("section_min", words_in, label=label, count=count, wanted=least))
        elif count > most:
            issues.append(wording.text("section_max", words_in, label=label, count=count, wanted=most))
    return issues
