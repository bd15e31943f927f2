"""What a card file holds: its records (JSON or CSV, read as a stream), whether they are the
game's, and each card once.

Whether it is the game's: every reader takes any record with a name, so a file
of another game (a Riftbound CSV given to Magic, a Scryfall file to Flesh and Blood) would be
read as cards with a name and nothing else. The first SHAPE_SAMPLE records are checked before
anything is written (docs/cards.md)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from itertools import islice
from pathlib import Path
from typing import Iterable, Iterator

from .models import Game


class CardFileError(ValueError):
    """The file is not one of the documented shapes."""


def iter_json_array(path: Path, chunk_size: int = 1 << 20) -> Iterator[dict]:
    """Items of a top-level JSON array, decoded one by one: a Scryfall bulk file (hundreds of
    MB) never has to be held whole in memory."""
    decoder = json.JSONDecoder()
    with open(path, encoding="utf-8") as handle:
        buffer = handle.read(chunk_size).lstrip()
        if not buffer.startswith("["):
            raise CardFileError(f"{path.name}: expected a JSON array")
        buffer, position, eof = buffer[1:], 0, False
        while True:
            while position < len(buffer) and buffer[position] in " \t\r\n,":
                position += 1
            if position < len(buffer) and buffer[position] == "]":
                return
            try:
                item, end = decoder.raw_decode(buffer, position)
            except json.JSONDecodeError:
                if eof:
                    raise CardFileError(f"{path.name}: truncated or invalid JSON") from None
                more = handle.read(chunk_size)
                eof = not more
                buffer, position = buffer[position:] + more, 0
                continue
            yield item
            position = end


def read_records(path: Path) -> Iterator[dict]:
    """Raw records of a JSON (array, {"cards": [...]}, MTGJSON {"data": {...}}) or CSV file."""
    if path.suffix.lower() == ".csv":
        with open(path, encoding="utf-8-sig", newline="") as handle:
            yield from csv.DictReader(handle)
        return
    with open(path, encoding="utf-8") as handle:
        first = handle.read(4096).lstrip()[:1]
    if first == "[":
        yield from iter_json_array(path)
        return
    document = json.loads(path.read_text(encoding="utf-8"))
    document = document.get("data", document) if isinstance(document, dict) else document
    if not isinstance(document, dict) or not isinstance(document.get("cards"), list):
        raise CardFileError(f"{path.name}: expected a list of cards or an object with 'cards'")
    set_fields = {"_set_code": document.get("code", ""), "_set_name": document.get("name", "")}
    for record in document["cards"]:
        yield {**set_fields, **record} if isinstance(record, dict) else record  # a non-object: reported


# Fields only one game's files have.
SHAPE_MARKERS = {
    "mtg": {"type_line", "card_faces", "oracle_id", "oracle_text", "mana_cost",  # Scryfall
            "types", "manaCost", "foreignData", "scryfallOracleId"},  # MTGJSON
    "fab": {"pitch", "class", "talent", "defense", "legal_heroes"},
    "riftbound": {"domains", "might", "tags"},
}  # fmt: skip
SHAPE_SAMPLE = 100
EXPECTED_SHAPE = {
    "mtg": "a Scryfall bulk file or an MTGJSON set file",
    "fab": "our JSON list or CSV (name, type, pitch…)",
    "riftbound": "our JSON list or CSV (name, type, domains…)",
}


def _markers(record: dict) -> set[str]:
    """The games whose own fields the record fills."""
    filled = {key for key, value in record.items() if value not in ("", [], {})}
    return {game for game, fields in SHAPE_MARKERS.items() if filled & fields}


def _fits(record: dict, card_game: str) -> bool:
    """A Magic card has Scryfall's or MTGJSON's fields; our Flesh and Blood and Riftbound
    columns are mostly optional, so a card of theirs only has to not be another game's."""
    games = _markers(record)
    return card_game in games or (card_game != "mtg" and not games)


def of_the_game(records: Iterable[dict], card_game: str, path: Path) -> Iterator[dict]:
    """The records, once the first SHAPE_SAMPLE are found to be mostly the game's: a file of
    another shape is refused before anything is written."""
    records = iter(records)
    sample = list(islice(records, SHAPE_SAMPLE))
    if not sample:  # a header alone, `[]`: « 0 cards read » and a success would hide a wrong file
        raise CardFileError(f"{path.name}: no card in it; expected {EXPECTED_SHAPE[card_game]} (docs/cards.md)")
    unfit = [record for record in sample if not _fits(record, card_game)]
    if len(unfit) * 2 > len(sample):
        looks = Counter(game for record in unfit for game in _markers(record) if game != card_game)
        like = f" (they look like {Game.CardGame(looks.most_common(1)[0][0]).label} cards)" if looks else ""
        raise CardFileError(
            f"{path.name}: {len(unfit)} of its first {len(sample)} cards are not {Game.CardGame(card_game).label} "
            f"cards{like}; expected {EXPECTED_SHAPE[card_game]} (docs/cards.md)"
        )
    yield from sample
    yield from records


def first_of_each(cards: Iterable[dict], report) -> Iterator[dict]:
    """A card repeated in one file (a reprint in another set) is taken from its first record:
    taking each in turn would count it created then updated, and rewrite it twice at each
    re-import of the same file. `report.repeats` counts them (card_import.ImportReport)."""
    seen: set[str] = set()
    for card in cards:
        if card["key"] in seen:
            report.repeats += 1
            continue
        seen.add(card["key"])
        yield card
