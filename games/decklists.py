"""Tournament decklists from plain text ("4 Lightning Bolt", then a Sideboard section).

A list is stored as a Decklist row and indexed in `meta_<slug>` as a `[META]` chunk
(`meta_type='tournament_deck'`, `meta_format`), the inspiration of the deckbuilding mode.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from django.db import transaction
from django.utils.translation import gettext as _

from rag.cards import fold_name
from rag.synergy import FORMATS, canonical_format

from .card_indexing import meta_collection
from .index_state import mark_changed
from .models import Decklist, Game

_LINE_RE = re.compile(r"^\s*(?:SB:\s*)?(\d+)\s*[x×X]?\s+(.+?)\s*$")
# A quantity is read as an int only when it has at most this many digits: Python refuses to
# convert 4,300 digits or more (a 500 once), and no deck holds 10,000 copies of a card.
MAX_QUANTITY_DIGITS = 4
# Arena's « 4 Opt (DOM) 60 » (Oracle's own export): the set and collector number are not the
# name. An upper-case code only, so FAB's « Head Jab (red) » keeps its pitch.
_SET_NUMBER_RE = re.compile(r"\s+\([A-Z0-9]{2,6}\)(?:\s+[A-Za-z0-9★-]+)?$")
_DATE_RE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
SECTION_HEADERS = {
    "deck": "main", "main": "main", "maindeck": "main", "main deck": "main", "mainboard": "main",
    "sideboard": "sideboard", "side": "sideboard", "reserve": "sideboard", "réserve": "sideboard",
    "runes": "runes", "rune deck": "runes", "battlefields": "battlefields",
    "champs de bataille": "battlefields", "legend": "legend", "légende": "legend",
    "hero": "hero", "héros": "hero", "equipment": "equipment", "équipement": "equipment",
    "weapons": "equipment", "armes": "equipment",
    # Fabrary's text export (Flesh and Blood): « Arena cards » (weapons and equipment), « Deck cards »
    "arena cards": "equipment", "deck cards": "main",
    # Arena's export of a Brawl or Commander deck (« Commander », its card, a blank line,
    # « Deck »): the commander counts in the deck's 100 cards and sets its colour identity
    "commander": "commander", "commandant": "commander", "commanders": "commander", "commandants": "commander",
    # Arena's companion block: the card is outside the deck (Arena lists it in the sideboard too),
    # so it counts in neither, and is kept under its own heading
    "companion": "companion", "compagnon": "companion",
}  # fmt: skip
# Sections of a few cards under their own heading: a blank line after them goes back to the
# main deck (« Equipment », its cards, a blank line, the deck's cards).
SHORT_SECTIONS = {"hero", "legend", "equipment", "companion", "commander"}
MTGO_SIDEBOARD_MAX = 15  # a Constructed sideboard holds at most 15 cards
# A line naming its one card after the heading: Fabrary's « Hero: Katsu, the Wanderer »,
# Moxfield's « Commander: Alesha, Who Smiles at Death ».
_ONE_CARD_RE = re.compile(r"^(hero|héros|legend|légende|commander|commandant)\s*:\s*(?:1\s*[x×X]?\s+)?(\S.*)$", re.IGNORECASE)
# « Format: Classic Constructed », « Name: … » in the same export, Arena's « About » block
# (« About », then « Name Mono Red »): read as comments.
_FIELD_RE = re.compile(r"^(?:(format|name|nom)\s*:\s*\S|about$|name\s+\S)", re.IGNORECASE)
# The last lines of Fabrary's export: « Made with ❤️ at the FaBrary », « See the full deck @ https://… ».
_EXPORT_NOTE_RE = re.compile(r"^(?:made with\b.*\bfabrary$|see the full deck\b)", re.IGNORECASE)


class DecklistError(ValueError):
    """A line the list cannot hold (the API's 422)."""


@dataclass(frozen=True)
class ParsedDecklist:
    sections: dict[str, list[list]]
    comments: list[str]
    # Lines that are neither a card (« 4 Opt », « 4x Opt »: the count first, as every export
    # writes it), a heading nor a comment, as written: left out of the list.
    unread: list[str] = field(default_factory=list)

    @property
    def main_count(self) -> int:
        return sum(q for q, _ in self.sections.get("main", []))


def parse_decklist_text(text: str) -> ParsedDecklist:
    """Sections of a plain-text list; quantities of a repeated card (whatever its case) are
    merged under its first spelling. A line without a count (« Opt », « four Opt », « -2 Opt »)
    is not guessed at: it is kept in `unread` for the caller to name."""
    sections: dict[str, dict[str, list]] = {"main": {}}
    comments, unread, current = [], [], "main"
    for raw in _mtgo_sideboard_named(text).splitlines():
        line = raw.strip()
        if not line:  # the end of a short section's cards (not the gap right after its heading)
            current = "main" if current in SHORT_SECTIONS and sections.get(current) else current
            continue
        if line.startswith(("//", "#")) or _FIELD_RE.match(line) or _EXPORT_NOTE_RE.match(line):
            comments.append(line.lstrip("/# ").strip())
            continue
        header = SECTION_HEADERS.get(line.rstrip(":").strip().lower())
        if header:
            current = header
            continue
        if one_card := _ONE_CARD_RE.match(line):
            _add(sections, SECTION_HEADERS[one_card.group(1).lower()], 1, one_card.group(2))
            continue
        match = _LINE_RE.match(line)
        if not match:
            unread.append(line)
            continue
        if len(match.group(1).lstrip("0")) > MAX_QUANTITY_DIGITS:
            raise DecklistError(_("Quantité trop grande dans la ligne « %(line)s » (au plus %(max)d).")
                                % {"line": shown_line(line), "max": 10**MAX_QUANTITY_DIGITS - 1})
        section = "sideboard" if raw.lstrip().startswith("SB:") else current
        _add(sections, section, int(match.group(1)), _SET_NUMBER_RE.sub("", match.group(2)))
    return ParsedDecklist(
        sections={name: list(entries.values()) for name, entries in sections.items() if entries},
        comments=comments,
        unread=unread,
    )


def shown_line(line: str, width: int = 60) -> str:
    """A pasted line as a message quotes it: its first `width` characters."""
    return line[:width] + ("…" if len(line) > width else "")


def _mtgo_sideboard_named(text: str) -> str:
    """MTGO's text export (and the sites that copy it) has no headings: the main deck, a blank
    line, the sideboard. A list without any heading or « SB: » whose cards stand in exactly two
    blocks, the second of at most MTGO_SIDEBOARD_MAX cards, gets « Sideboard » before that block;
    any other list is read as written."""
    lines = text.splitlines()
    if any(_is_heading(line.strip()) or line.lstrip().startswith("SB:") for line in lines):
        return text
    blocks, block = [], []
    for line in [*lines, ""]:
        if line.strip():
            block.append(line)
        elif block:
            blocks.append(block)
            block = []
    cards = [[m for line in b if (m := _LINE_RE.match(line.strip()))] for b in blocks]
    card_blocks = [n for n, found in enumerate(cards) if found]
    if len(card_blocks) != 2 or sum(int(m.group(1)[:MAX_QUANTITY_DIGITS]) for m in cards[card_blocks[1]]) > MTGO_SIDEBOARD_MAX:
        return text
    blocks.insert(card_blocks[1], ["Sideboard"])
    return "\n\n".join("\n".join(b) for b in blocks)


def _is_heading(line: str) -> bool:
    return bool(SECTION_HEADERS.get(line.rstrip(":").strip().lower()) or _ONE_CARD_RE.match(line))


def _add(sections: dict[str, dict[str, list]], section: str, quantity: int, name: str) -> None:
    entry = sections.setdefault(section, {}).setdefault(fold_name(name), [0, name])
    entry[0] += quantity


def guess_format(comments: list[str]) -> str:
    """The format of the longest name of a format (`rag.synergy.FORMATS`) written as whole
    words, as questions name it: « Premodern » is not Modern, « Standard Brawl » not Standard,
    « EDH » is commander."""
    text = fold_name(" ".join(comments))
    named = [(folded, fmt) for fmt, words in FORMATS.items() for folded in map(fold_name, words)
             if re.search(rf"(?<!\w){re.escape(folded)}(?!\w)", text)]  # fmt: skip
    return max(named, key=lambda found: len(found[0]), default=("", ""))[1]


def guess_date(comments: list[str]) -> dt.date | None:
    match = _DATE_RE.search(" ".join(comments))
    return dt.date.fromisoformat(match.group(1)) if match else None


@dataclass(frozen=True)
class DecklistFile:
    """A list file read and checked, not stored yet: `import_decklists` reads every file
    before it writes the first."""

    name: str
    format: str
    played_on: dt.date | None
    parsed: ParsedDecklist


def read_decklist(path: Path, format: str = "", date: dt.date | None = None, name: str = "") -> DecklistFile:
    """The list of `path`; the format and date come from the arguments, else from the list's
    comment lines. A file that is not a list raises ValueError naming it."""
    path = Path(path)
    try:
        parsed = parse_decklist_text(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:  # a PDF, a Latin-1 export: the error alone does not name the file
        raise ValueError(f"{path.name}: not UTF-8 text") from None
    if not parsed.sections:  # a JSON file renamed .txt, an empty file: it must not replace a good list
        raise ValueError(f'{path.name}: no card line such as "4 Lightning Bolt", not a decklist')
    # the format a question is filtered on (« EDH » → commander): stored as written, a list
    # would never be found
    deck_format = canonical_format(format) if format.strip() else guess_format(parsed.comments)
    if not deck_format:
        raise ValueError(f"{path.name}: no format given and none found in its comments")
    return DecklistFile(name or path.stem, deck_format, date or guess_date(parsed.comments), parsed)


def store_document(game: Game, name: str, *, embedded: dict, **other) -> tuple[Decklist, bool]:
    """Create the game's meta document `name` (a decklist, a ratings table), or bring it up to
    date, and whether it changed. When what its vector is made from (`embedded`: its sections
    and source, a body) changed, the vector is cleared, to be embedded again, and `other` (its
    address, its kind) is updated with it; unchanged, the document keeps its vector: clearing
    it would take it out of search until the embedder runs again, for nothing."""
    row, created = Decklist.objects.get_or_create(game=game, name=name, defaults={**embedded, **other})
    if created:
        return row, True
    if all(getattr(row, field) == value for field, value in embedded.items()):
        return row, False
    for field, value in {**embedded, **other, "dense": None, "indexed": False}.items():
        setattr(row, field, value)
    row.save()
    return row, True


def save_decklist(game: Game, deck: DecklistFile) -> Decklist:
    """Create or replace (same name) a tournament decklist; one imported again unchanged keeps
    its vector (`store_document`)."""
    embedded = {"format": deck.format, "played_on": deck.played_on, "source": " ".join(deck.parsed.comments)[:300],
                "sections": deck.parsed.sections}  # fmt: skip
    with transaction.atomic():
        row, changed = store_document(game, deck.name, embedded=embedded)
        if changed:
            mark_changed(meta_collection(game))
    return row


def import_decklist(
    game: Game, path: Path, format: str = "", date: dt.date | None = None, name: str = "",
    on_unread: Callable[[list[str]], None] | None = None,
) -> Decklist:
    """Read and store one list. The lines the parser could not read are left out and handed
    to `on_unread` (the command names them)."""
    deck = read_decklist(path, format=format, date=date, name=name)
    if deck.parsed.unread and on_unread is not None:
        on_unread(deck.parsed.unread)
    return save_decklist(game, deck)
