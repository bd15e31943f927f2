"""Import of a card catalog from files (the look-ups are games/card_lookup.py).

Accepted files (docs/cards.md shows each shape with a sample):
- Magic: a Scryfall bulk JSON (`default_cards` or `all_cards`: prints are merged per
  oracle card, a French print gives the French name), or an MTGJSON set file.
- Flesh and Blood, Riftbound: a JSON list (or {"cards": [...]}) or a CSV with our columns.

A re-import updates the rows in place; a card whose embedded text changed loses its vector
and is embedded again, the others keep theirs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from django.db import transaction

from rag.cards import card_embedding_text, fold_name

from .card_files import CardFileError, first_of_each, of_the_game, read_records
from .card_indexing import card_collection, card_payload, text_hash
from .card_lookup import forget_catalog
from .index_state import mark_changed
from .models import Card, Game
from .terms import learn_card_terms

MTG_SKIPPED_LAYOUTS = {"token", "double_faced_token", "art_series", "emblem", "vanguard", "scheme", "planar"}
FAB_PITCH_COLORS = {1: "red", 2: "yellow", 3: "blue"}
CARD_FIELDS = [
    "name", "name_fr", "search_name", "search_name_fr", "cost", "type_line", "text", "text_fr",
    "colors", "color_identity", "legal_formats", "set_code", "set_name", "rarity", "attributes",
]  # fmt: skip


@dataclass
class ImportReport:
    read: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    terms: int = 0  # French ↔ English terms learnt from the cards' two texts (games.terms)
    repeats: int = 0  # records of a card already read from the same file, left out
    errors: list[str] = field(default_factory=list)


# --- Reading files ---------------------------------------------------------------------------


def _well_formed(records: Iterable, path: Path, errors: list[str]) -> Iterator[dict]:
    """The records a reader can take. A CSV row with fewer or more cells than its header (a
    line break or a comma outside quotes), or a record without a name, is left out and
    reported: one bad row must not stop the import half-way with a traceback."""
    from_csv = path.suffix.lower() == ".csv"
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict):
            errors.append(f"{path.name}, card {number}: not an object")
        elif from_csv and (None in record or None in record.values()):  # csv.DictReader's marks
            errors.append(f"{path.name}, row {number}: not as many cells as the header has columns")
        elif not _text(record, "name").strip():
            errors.append(f"{path.name}, card {number}: no name")
        else:  # a JSON null reads as a missing field: each reader's default
            yield {key: value for key, value in record.items() if value is not None}


def _text(record: dict, key: str) -> str:
    """A field as text: a JSON null (or a missing field) is empty, a number its digits."""
    return str(record.get(key) or "")


def _split_list(value) -> list[str]:
    if value in (None, ""):
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part.strip() for part in str(value).replace(";", "|").split("|") if part.strip()]


def _main_types(type_line: str) -> list[str]:
    left = type_line.split("—")[0].split(" - ")[0]
    return [word.lower() for word in left.replace("//", " ").split() if word[:1].isupper()]


# --- Magic ---------------------------------------------------------------------------------


def _scryfall_faces(record: dict, key: str) -> str:
    faces = record.get("card_faces") or []
    if record.get(key):
        return record[key]
    return " // ".join(face.get(key, "") for face in faces if face.get(key))


def mtg_records(records: Iterable[dict]) -> Iterator[dict]:
    """Normalised Magic cards from Scryfall prints or MTGJSON cards, merged per oracle card."""
    merged: dict[str, dict] = {}
    for record in records:
        from_mtgjson = "_set_code" in record or "manaCost" in record or "foreignData" in record
        card = _mtgjson_card(record) if from_mtgjson else _scryfall_card(record)
        if card is None:
            continue
        current = merged.get(card["key"])
        if current is None:
            merged[card["key"]] = card
        elif "_faces" in card and "_faces" in current:
            current["_faces"] = {**card["_faces"], **current["_faces"]}  # a reprint's faces are known
        else:
            _merge_print(current, card)
    for card in merged.values():
        card.pop("_lang", None)
        _join_faces(card, card.pop("_faces", {}))
        yield card


def _join_faces(card: dict, faces: dict[str, dict]) -> None:
    """An MTGJSON card of several faces (one record per face: Fire // Ice, a transform card) as
    Scryfall gives it: costs, types and texts of the faces in side order, joined by « // »."""
    if len(faces) < 2:
        return
    ordered = [faces[side] for side in sorted(faces)]
    for key in ("cost", "type_line", "text", "text_fr"):
        card[key] = " // ".join(face[key] for face in ordered if face[key])
    card["colors"] = sorted({color for face in ordered for color in face["colors"]})
    types = card["attributes"]["types"]
    types += [t for face in ordered for t in face["types"] if t not in types]


def _merge_print(current: dict, other: dict) -> None:
    if other["_lang"] == "fr":
        current["name_fr"] = current["name_fr"] or other["name_fr"]
        current["text_fr"] = current["text_fr"] or other["text_fr"]
    elif current["_lang"] != "en":
        french = (current["name_fr"], current["text_fr"])
        current.update(other)
        current["name_fr"], current["text_fr"] = french[0] or other["name_fr"], french[1] or other["text_fr"]


def _restricted(record: dict, value: str) -> dict:
    """The formats where the card is restricted, kept apart from `legal_formats` (which counts
    it legal) for the copy limit: one copy (Vintage; Pauper Commander's, the commander only, is
    one copy too). Absent when none, so the other cards' rows stay as they were."""
    formats = sorted(f for f, v in (record.get("legalities") or {}).items() if v == value)
    return {"restricted_in": formats} if formats else {}


def _scryfall_card(record: dict) -> dict | None:
    if record.get("object") not in (None, "card") or record.get("layout") in MTG_SKIPPED_LAYOUTS:
        return None
    lang = record.get("lang", "en")
    if lang not in ("en", "fr"):
        return None
    french = lang == "fr"
    type_line = _scryfall_faces(record, "type_line")
    return {
        "_lang": lang,
        "key": record.get("oracle_id") or fold_name(record["name"]),
        "name": record["name"],
        "name_fr": _scryfall_faces(record, "printed_name") if french else "",
        "cost": _scryfall_faces(record, "mana_cost"),
        "type_line": type_line,
        "text": _scryfall_faces(record, "oracle_text"),
        "text_fr": _scryfall_faces(record, "printed_text") if french else "",
        "colors": record.get("colors") or sorted({c for f in record.get("card_faces", []) for c in f.get("colors", [])}),
        "color_identity": record.get("color_identity", []),
        "legal_formats": sorted(f for f, v in (record.get("legalities") or {}).items() if v in ("legal", "restricted")),
        "set_code": record.get("set", ""),
        "set_name": record.get("set_name", ""),
        "rarity": record.get("rarity", ""),
        "attributes": {
            "types": _main_types(type_line),
            "cmc": record.get("cmc", 0),
            "power": record.get("power", ""),
            "toughness": record.get("toughness", ""),
            "keywords": record.get("keywords", []),
            "collector_number": record.get("collector_number", ""),
            "mtgo_id": record.get("mtgo_id"),
            "arena_id": record.get("arena_id"),
            "layout": record.get("layout", ""),  # a split card is named whole by Arena and MTGO
            **_restricted(record, "restricted"),
        },
    }


def _mtgjson_card(record: dict) -> dict:
    french = next((f for f in record.get("foreignData", []) if f.get("language") == "French"), {})
    type_line = record.get("type", "")
    ids = {**(record.get("identifiers") or {}), **record}  # MTGJSON v5 keeps them under `identifiers`
    card = {
        "_lang": "en",
        "key": ids.get("scryfallOracleId") or fold_name(record["name"]),
        "name": record["name"],
        "name_fr": french.get("name", ""),
        "cost": record.get("manaCost", ""),
        "type_line": type_line,
        "text": record.get("text", ""),
        "text_fr": french.get("text", ""),
        "colors": record.get("colors", []),
        "color_identity": record.get("colorIdentity", []),
        "legal_formats": sorted(f for f, v in (record.get("legalities") or {}).items() if v in ("Legal", "Restricted")),
        "set_code": record.get("setCode", record.get("_set_code", "")).lower(),
        "set_name": record.get("_set_name", ""),
        "rarity": record.get("rarity", ""),
        "attributes": {
            "types": [t.lower() for t in record.get("types", [])] or _main_types(type_line),
            "cmc": record.get("convertedManaCost", 0),
            "power": record.get("power", ""),
            "toughness": record.get("toughness", ""),
            "keywords": record.get("keywords", []),
            "collector_number": record.get("number", ""),
            "mtgo_id": ids.get("mtgoId"),
            "arena_id": ids.get("mtgArenaId"),
            "layout": record.get("layout", ""),
            **_restricted(record, "Restricted"),
        },
    }
    if record.get("side"):  # one face of the card: `mtg_records` joins it to the others
        face = {key: card[key] for key in ("cost", "type_line", "text", "text_fr", "colors")}
        card["_faces"] = {record["side"]: {**face, "types": card["attributes"]["types"]}}
    return card


# --- Flesh and Blood and Riftbound (our documented shapes) -----------------------------------


def fab_records(records: Iterable[dict]) -> Iterator[dict]:
    for record in records:
        pitch = int(record["pitch"]) if _text(record, "pitch").strip() else None
        name = _text(record, "name").strip()
        display = f"{name} ({FAB_PITCH_COLORS[pitch]})" if pitch in FAB_PITCH_COLORS else name
        type_line = _text(record, "type")
        yield _common_card(
            record,
            display,
            type_line,
            {
                "types": _main_types(type_line),
                "base_name": name,
                "pitch": pitch,
                "class": _text(record, "class"),
                "talent": _text(record, "talent"),
                "power": _text(record, "power"),
                "defense": _text(record, "defense"),
                "legal_heroes": _split_list(record.get("legal_heroes")),
            },
        )


def riftbound_records(records: Iterable[dict]) -> Iterator[dict]:
    for record in records:
        type_line = _text(record, "type")
        yield _common_card(
            record,
            _text(record, "name").strip(),
            type_line,
            {
                "types": _main_types(type_line),
                "domains": _split_list(record.get("domains")),
                "might": _text(record, "might"),
                "power": _text(record, "power"),
                "tags": _split_list(record.get("tags")),
            },
        )


def _common_card(record: dict, name: str, type_line: str, attributes: dict) -> dict:
    return {
        "key": fold_name(name),
        "name": name,
        "name_fr": _text(record, "name_fr").strip(),
        "cost": _text(record, "cost"),
        "type_line": type_line,
        "text": _text(record, "text"),
        "text_fr": _text(record, "text_fr"),
        "colors": [],
        "color_identity": [],
        "legal_formats": [f.lower() for f in _split_list(record.get("legal_formats"))],
        "set_code": _text(record, "set_code").lower(),
        "set_name": _text(record, "set_name"),
        "rarity": _text(record, "rarity"),
        "attributes": {k: v for k, v in attributes.items() if v not in (None, "", [])},
    }


def normalised_cards(game: Game, path: Path, errors: list[str] | None = None) -> Iterator[dict]:
    """The file's cards; the rows left out are described in `errors`."""
    readers = {"mtg": mtg_records, "fab": fab_records, "riftbound": riftbound_records}
    if game.card_game not in readers:
        raise CardFileError(f"{game.name} is not a card game (set its card game first)")
    errors = [] if errors is None else errors
    try:
        records = of_the_game(_well_formed(read_records(path), path, errors), game.card_game, path)
        yield from readers[game.card_game](records)
    except UnicodeDecodeError:  # a PDF, a Latin-1 CSV: the error's repr would hold the file's bytes
        raise CardFileError(f"{path.name}: not UTF-8 text (a card file is JSON or CSV saved as UTF-8)") from None
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, CardFileError):
            raise
        raise CardFileError(f"{path.name}: unexpected card record ({exc!r}); see docs/cards.md") from exc


# --- Writing rows ---------------------------------------------------------------------------


def _row_values(card: dict) -> dict:
    return {
        **{key: card[key] for key in CARD_FIELDS if key in card},
        "search_name": fold_name(card["name"]),
        "search_name_fr": fold_name(card["name_fr"]),
    }


def _content_hash(values: dict) -> str:
    return hashlib.sha1(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()


def import_cards(game: Game, path: Path, progress: Callable[[int], None] | None = None, batch_size: int = 1000) -> ImportReport:
    """Create or update the cards of `game` from `path`; vectors are left to `embed_pending_cards`."""
    report = ImportReport()
    existing = {
        key: (pk, attrs.get("_hash"))
        for key, pk, attrs in Card.objects.filter(game=game).values_list("key", "id", "attributes")
    }
    try:
        cards = first_of_each(normalised_cards(game, Path(path), report.errors), report)
        _write_batches(game, cards, existing, report, progress, batch_size)
    finally:  # a file that fails half-way leaves its first batches written: they are indexed too
        with transaction.atomic():
            mark_changed(card_collection(game))
        forget_catalog(game)
    report.terms = learn_card_terms(game)
    return report


def _write_batches(game: Game, cards: Iterable[dict], existing: dict, report: ImportReport, progress, batch_size: int) -> None:
    batch: list[dict] = []
    for card in cards:
        batch.append(card)
        if len(batch) >= batch_size:
            _write_batch(game, batch, existing, report)
            batch = []
            if progress:
                progress(report.read)
    if batch:
        _write_batch(game, batch, existing, report)
        if progress:
            progress(report.read)


def _write_batch(game: Game, cards: list[dict], existing: dict, report: ImportReport) -> None:
    new_rows, changed_rows = [], []
    for card in cards:
        report.read += 1
        values = _row_values(card)
        digest = _content_hash(values)
        values["attributes"] = {**values["attributes"], "_hash": digest}
        known = existing.get(card["key"])
        if known is None and card["key"] != fold_name(card["name"]):
            # a card read before by its name (an MTGJSON v5 file, whose oracle id was not read)
            # is the same row, rewritten under its oracle id (its key changed: never unchanged)
            renamed = existing.pop(fold_name(card["name"]), None)
            known = (renamed[0], None) if renamed else None
        if known and known[1] == digest:
            report.unchanged += 1
            continue
        row = Card(game=game, key=card["key"], **values)
        if known:
            row.pk = known[0]
            changed_rows.append(row)
        else:
            row.embedded_text_hash = text_hash(card_embedding_text(card_payload(row)))
            new_rows.append(row)
        existing[card["key"]] = (row.pk, digest)
    with transaction.atomic():
        Card.objects.bulk_create(new_rows)
        _update_changed(changed_rows)
    report.created += len(new_rows)
    report.updated += len(changed_rows)


def _update_changed(rows: list[Card]) -> None:
    """Changed cards: new values, but French ones a source without them would blank (Scryfall's
    English bulk file after a set file with French names: the French names and @-mentions
    went); only the cards whose embedded text changed lose their vector."""
    if not rows:
        return
    fields = ("id", "embedded_text_hash", "dense", "name_fr", "text_fr")
    old = {values[0]: values[1:] for values in Card.objects.filter(pk__in=[r.pk for r in rows]).values_list(*fields)}
    for row in rows:
        digest, dense, name_fr, text_fr = old.get(row.pk, ("", None, "", ""))
        if not row.name_fr and name_fr:
            row.name_fr, row.search_name_fr = name_fr, fold_name(name_fr)
        row.text_fr = row.text_fr or text_fr
        row.embedded_text_hash = text_hash(card_embedding_text(card_payload(row)))
        row.dense = dense if digest == row.embedded_text_hash else None
        row.indexed = False
    Card.objects.bulk_update(rows, CARD_FIELDS + ["key", "embedded_text_hash", "dense", "indexed"])
