"""17Lands (www.17lands.com): card ratings of a limited set, the JSON its own card-ratings page
loads (`/card_ratings/data?expansion=LTR&format=PremierDraft`): one object per card with
`name`, `color`, `rarity`, `ever_drawn_win_rate` (GIH WR), `avg_seen` (ALSA),
`avg_pick` (ATA), `drawn_improvement_win_rate` (IWD), game counts.

17Lands answers `[]` (HTTP 200) for a set code it does not know, and cards with a handful of
games for a set just out: both raise `NoData`, so the set's previous ratings are kept and the
answer is not cached."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .http import NoData, PoliteClient, SiteChanged

REQUIRED = ("name", "ever_drawn_win_rate", "game_count")
MIN_GAMES = 200  # a win rate over fewer games than this says little


@dataclass(frozen=True)
class CardRating:
    name: str
    color: str
    rarity: str
    gih_wr: float | None  # games-in-hand win rate (ever drawn)
    alsa: float | None  # average last seen at
    ata: float | None  # average taken at
    iwd: float | None  # improvement when drawn
    games: int


def parse_card_ratings(text: str, expansion: str) -> list[CardRating]:
    """The cards of the answer; `NoData` when none has MIN_GAMES games (the ratings would be empty)."""
    cards = _cards(text, expansion)
    if not rated(cards):
        raise NoData(f"17Lands card ratings {expansion}: no card with {MIN_GAMES} games or more "
                     f"({len(cards)} cards; an unknown set code, or a set too new)")
    return cards


def rated(ratings: list[CardRating]) -> list[CardRating]:
    """The cards whose win rate says something: rated, over MIN_GAMES games or more."""
    return [r for r in ratings if r.gih_wr is not None and r.games >= MIN_GAMES]


def _cards(text: str, expansion: str) -> list[CardRating]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise SiteChanged(f"17Lands card ratings {expansion}: not JSON ({exc})") from exc
    if not isinstance(data, list) or (data and not all(isinstance(d, dict) for d in data)):
        raise SiteChanged(f"17Lands card ratings {expansion}: not a list of cards")
    if data and any(key not in data[0] for key in REQUIRED):
        raise SiteChanged(f"17Lands card ratings {expansion}: cards lack {', '.join(k for k in REQUIRED if k not in data[0])}")
    return [
        CardRating(
            name=card["name"], color=card.get("color") or "", rarity=card.get("rarity") or "",
            gih_wr=card.get("ever_drawn_win_rate"), alsa=card.get("avg_seen"), ata=card.get("avg_pick"),
            iwd=card.get("drawn_improvement_win_rate"), games=int(card.get("game_count") or 0),
        )
        for card in data
    ]


class SeventeenLands:
    def __init__(self, client: PoliteClient):
        self.client = client

    def card_ratings(self, expansion: str, format: str = "PremierDraft") -> list[CardRating]:
        return self.client.get_text("/card_ratings/data", {"expansion": expansion.upper(), "format": format},
                                    read=lambda text: parse_card_ratings(text, expansion))

    def page_url(self, expansion: str, format: str) -> str:
        return f"{self.client.base_url.rstrip('/')}/card_ratings?expansion={expansion.upper()}&format={format}"


def ratings_text(ratings: list[CardRating], expansion: str, format: str, limit: int = 40) -> str:
    """A `[META]` passage: the set's best cards by GIH WR (enough games only), one line each."""
    best = sorted(rated(ratings), key=lambda r: r.gih_wr, reverse=True)[:limit]
    lines = [f"[META] 17Lands — {expansion.upper()} {format} : meilleures cartes par GIH WR (win rate en main)"]
    for rank, r in enumerate(best, start=1):
        extras = [f"ALSA {r.alsa:.2f}" if r.alsa is not None else "", f"IWD {100 * r.iwd:+.1f} pts" if r.iwd is not None else ""]
        lines.append(f"{rank}. {r.name} ({r.color or 'incolore'}, {r.rarity}) — GIH WR {100 * r.gih_wr:.1f} %, "
                     + ", ".join(e for e in extras if e) + f", {r.games} parties")
    return "\n".join(lines)
