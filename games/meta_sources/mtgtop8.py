"""MTGTop8 (mtgtop8.com): the recent events of a format, each event's decks, and each deck's
text export (`/dec?d=<id>`, Magic Workstation format: `4 [SET] Card`, `SB:  2 [SET] Card`).

MTGTop8 has no API: the format page and the event page are HTML. What is read of them is
only the links (`event?e=<id>&f=<format>`, `?e=<event>&d=<deck>&f=<format>`), the deck names
beside them, the player links and the « N players - dd/mm/yy » line, so a change of
layout that keeps the links does not break the sync; a page that has none of them raises
`SiteChanged`. Format codes are MTGTop8's (`ST` Standard, `MO` Modern, `LE` Legacy, `VI`
Vintage, `PI` Pioneer, `PAU` Pauper, `PREM` Premodern, `EDH` Duel Commander, `cEDH`)."""

from __future__ import annotations

import datetime as dt
import html
import re
from dataclasses import dataclass, field

from .http import PoliteClient, SiteChanged

FORMAT_CODES = {
    "standard": "ST", "modern": "MO", "legacy": "LE", "vintage": "VI", "pioneer": "PI",
    "pauper": "PAU", "premodern": "PREM", "duel commander": "EDH", "cedh": "cEDH",
}  # fmt: skip
_EVENT_LINK = re.compile(r"href=[\"']?(?:/?event)?\?e=(\d+)&(?:amp;)?f=(\w+)[\"']?>([^<]*)</a>", re.I)
_DECK_LINK = re.compile(r"href=[\"']?(?:/?event)?\?e=(\d+)&(?:amp;)?d=(\d+)&(?:amp;)?f=(\w+)[\"']?>([^<]*)</a>", re.I)
_PLAYER = re.compile(r"href=[\"']?search\?player=[^>\"']*[\"']?>([^<]+)</a>", re.I)
_RANK = re.compile(r"class=S14>\s*(\d+(?:-\d+)?)\s*</div>", re.I)
_PLAYERS_DATE = re.compile(r"(\d+)\s+players\s*-\s*(\d{2})/(\d{2})/(\d{2})", re.I)
_DATE = re.compile(r"\b(\d{2})/(\d{2})/(\d{2})\b")
_MW_LINE = re.compile(r"^\s*(SB:)?\s*(\d+)\s+(?:\[[^\]]*\]\s*)?(.+?)\s*$")


@dataclass(frozen=True)
class Event:
    id: str
    format_code: str
    name: str
    date: dt.date | None = None


@dataclass(frozen=True)
class DeckEntry:
    id: str
    event_id: str
    name: str
    player: str = ""
    rank: str = ""


@dataclass
class EventPage:
    event_id: str
    players: int | None
    date: dt.date | None
    decks: list[DeckEntry] = field(default_factory=list)


def _date(day: str, month: str, year: str) -> dt.date | None:
    try:
        return dt.date(2000 + int(year), int(month), int(day))
    except ValueError:
        return None  # a dd/dd/dd that is no date (ratios, scores)


def parse_format_page(text: str, format_code: str) -> list[Event]:
    """The events listed on a format page, in page order (newest first on MTGTop8)."""
    events: dict[str, Event] = {}
    for match in _EVENT_LINK.finditer(text):
        event_id, code, name = match.group(1), match.group(2), html.unescape(match.group(3)).strip()
        if code.lower() != format_code.lower() or event_id in events or not name:
            continue
        tail = text[match.end() : match.end() + 200]
        found = _DATE.search(tail)
        events[event_id] = Event(event_id, code, name, _date(*found.groups()) if found else None)
    if not events:
        raise SiteChanged(f"MTGTop8 format page {format_code}: no event link (event?e=…&f={format_code}) found")
    return list(events.values())


def parse_event_page(text: str, event_id: str) -> EventPage:
    """The decks of an event (one per deck id, with the name written beside its link)."""
    header = _PLAYERS_DATE.search(text)
    page = EventPage(event_id, int(header.group(1)) if header else None,
                     _date(*header.groups()[1:]) if header else None)
    seen: dict[str, DeckEntry] = {}
    for match in _DECK_LINK.finditer(text):
        if match.group(1) != str(event_id):
            continue
        deck_id, name = match.group(2), html.unescape(match.group(4)).strip()
        if not name or name.startswith("→") or deck_id in seen:
            continue  # the thumbnail link (an <img>) and the « open deck » arrow are no names
        before = text[max(0, match.start() - 400) : match.start()]
        ranks = _RANK.findall(before)
        player = _PLAYER.search(text, match.end(), match.end() + 400)
        seen[deck_id] = DeckEntry(deck_id, str(event_id), name, html.unescape(player.group(1)).strip() if player else "",
                                  ranks[-1] if ranks else "")
    page.decks = list(seen.values())
    if not page.decks:
        raise SiteChanged(f"MTGTop8 event {event_id}: no deck link (?e={event_id}&d=…) found")
    return page


def parse_mwdeck(text: str) -> dict[str, list[list]]:
    """`{"main": [[4, "Griselbrand"], …], "sideboard": […]}` from a Magic Workstation export."""
    sections: dict[str, dict[str, int]] = {"main": {}, "sideboard": {}}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        match = _MW_LINE.match(line)
        if not match:
            raise SiteChanged(f"MTGTop8 deck export: unreadable line {line.strip()[:80]!r}")
        section = sections["sideboard" if match.group(1) else "main"]
        name = match.group(3)
        section[name] = section.get(name, 0) + int(match.group(2))
    if not sections["main"]:
        raise SiteChanged("MTGTop8 deck export: no main deck card")
    return {name: [[q, card] for card, q in cards.items()] for name, cards in sections.items() if cards}


class MtgTop8:
    def __init__(self, client: PoliteClient):
        self.client = client

    def recent_events(self, format_code: str, limit: int = 5) -> list[Event]:
        page = self.client.get_text("/format", {"f": format_code}, read=lambda text: parse_format_page(text, format_code))
        return page[:limit]

    def event(self, event: Event) -> EventPage:
        return self.client.get_text("/event", {"e": event.id, "f": event.format_code},
                                    read=lambda text: parse_event_page(text, event.id))

    def deck(self, deck_id: str) -> dict[str, list[list]]:
        return self.client.get_text("/dec", {"d": deck_id}, read=parse_mwdeck)

    def deck_url(self, entry: DeckEntry, format_code: str) -> str:
        return f"{self.client.base_url.rstrip('/')}/event?e={entry.event_id}&d={entry.id}&f={format_code}"
