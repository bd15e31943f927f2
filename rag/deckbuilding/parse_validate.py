"""Read a generated decklist and check it against its spec.

Only lines `N× [[card:Name]]` count (×, x or X required: prose never matches); markdown
headings choose the section (main, sideboard, runes, battlefields). Validation: exact total
per section, copy limit (basic lands exempt, French and English names), anchors present;
cards unknown to the catalog are warnings, not errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from rag.cards import fold_name, is_basic_land

from .spec import DeckSpec

CARD_LINE_RE = re.compile(r"^\s*(?:[-*•]\s*)?(\d{1,3})\s*[×xX]\s*\[\[card:([^\]|]+)(?:\|[^\]]*)?\]\]")
HEADING_RE = re.compile(r"^\s*(?:#{1,6}\s*(.+?)|\*\*(.+?)\*\*:?|([^\s#*].{0,40}):)\s*$")
SECTION_WORDS = (
    ("sideboard", ("sideboard", "side", "réserve", "reserve")),
    ("runes", ("rune",)),
    ("battlefields", ("battlefield", "champs de bataille", "champ de bataille")),
    ("legend", ("légende", "legend", "héros", "hero")),
)


@dataclass
class ParsedDeck:
    sections: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    roles: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # main-deck headings

    def total(self, section: str) -> int:
        return sum(q for q, _ in self.sections.get(section, []))

    def copies(self) -> dict[str, int]:
        """Copies per card name over main deck and sideboard (the copy limit spans both)."""
        counts: dict[str, int] = {}
        for section in ("main", "sideboard"):
            for quantity, name in self.sections.get(section, []):
                counts[name] = counts.get(name, 0) + quantity
        return counts

    def names(self) -> set[str]:
        return {fold_name(name) for entries in self.sections.values() for _, name in entries}

    def add(self, section: str, quantity: int, name: str, role: str = "") -> None:
        self.sections.setdefault(section, []).append((quantity, name))
        if section == "main" and role:
            self.roles.setdefault(role, []).append((quantity, name))


FAB_EXTRA_SECTIONS = (("equipment", ("équipement", "equipment", "arme", "weapon")),)


def _section_of(heading: str, game: str = "") -> str:
    folded = fold_name(heading)
    for section, words in SECTION_WORDS + (FAB_EXTRA_SECTIONS if game == "fab" else ()):
        if any(fold_name(word) in folded for word in words):
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


def validate_deck(
    deck: ParsedDeck,
    spec: DeckSpec,
    anchors: Iterable[dict] = (),
    known: Callable[[str], bool] | None = None,
) -> Verdict:
    issues, warnings = [], []
    totals = {section: deck.total(section) for section in spec.section_sizes()}
    for section, wanted in spec.section_sizes().items():
        if totals[section] != wanted:
            issues.append(f"{SECTION_LABELS[section]} : {totals[section]} cartes au lieu de {wanted}.")
    for name, count in sorted(deck.copies().items()):
        if count > spec.max_copies and not is_basic_land(name):
            issues.append(f"{name} : {count} exemplaires, le maximum est {spec.max_copies}.")
    present = deck.names()
    for anchor in anchors:
        aliases = {fold_name(n) for n in (anchor.get("card_name", ""), anchor.get("card_name_fr", "")) if n}
        if not aliases & present:
            issues.append(f"Carte obligatoire absente : {anchor.get('card_name')}.")
    if known is not None:
        unknown = sorted({n for entries in deck.sections.values() for _, n in entries if not is_basic_land(n) and not known(n)})
        warnings += [f"Carte inconnue du catalogue : {name}." for name in unknown]
    return Verdict(valid=not issues, issues=issues, warnings=warnings, totals=totals)
