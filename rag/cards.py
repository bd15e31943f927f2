"""Cards as prompt text: full and short renderings, the @-mention blocks, sticky mentions and
`[[card:Name]]` wrapping. Plain Python over card dicts (the payload of a `cards_<slug>` point,
see games.card_indexing.card_payload).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Sequence

FRESH_BLOCK_TITLE = "CARTES CITÉES PAR LE JOUEUR (ce tour)"
STICKY_BLOCK_TITLE = "CARTES ÉVOQUÉES DANS LA CONVERSATION"
STICKY_CAP = 20
STICKY_CAP_DECK = 80
SHORT_CARD_CHARS = 400  # ~100 tokens

BASIC_LANDS = frozenset(
    {
        "plains", "island", "swamp", "mountain", "forest", "wastes",
        "plaine", "ile", "marais", "montagne", "foret",
    }
)  # fmt: skip
SNOW_PREFIXES = ("snow-covered ",)
SNOW_SUFFIXES = (" enneigee", " enneige")  # French puts it after: « Forêt enneigée », « Marais enneigé »


def fold_name(name: str) -> str:
    """Lower-case, accents folded, typographic apostrophes unified: the key of a card name."""
    name = unicodedata.normalize("NFKD", name.replace("’", "'").replace("‘", "'"))
    name = "".join(ch for ch in name if not unicodedata.combining(ch))
    return " ".join(name.lower().split())


ENGLISH_BASICS = {"plaine": "Plains", "ile": "Island", "marais": "Swamp", "montagne": "Mountain", "foret": "Forest"}


def _without_snow(name: str) -> tuple[str, bool]:
    """The folded name without « Snow-Covered » / « enneigé(e) », and whether it had it."""
    folded = plain = fold_name(name)
    for prefix in SNOW_PREFIXES:
        plain = plain.removeprefix(prefix)
    for suffix in SNOW_SUFFIXES:
        plain = plain.removesuffix(suffix)
    return plain, plain != folded


def english_basic(name: str) -> str | None:
    """The English name of a French basic land (« Île » → « Island », « Forêt enneigée » →
    « Snow-Covered Forest »), None for any other name: Arena and MTGO know only English names."""
    plain, snow = _without_snow(name)
    english = ENGLISH_BASICS.get(plain)
    return None if english is None else ("Snow-Covered " if snow else "") + english


def is_basic_land(name: str) -> bool:
    """Basic lands (French and English names, snow too) are exempt from the copy limit."""
    return basic_type(name) is not None


def basic_type(name: str) -> str | None:
    """A basic land's type, folded English (« Forêt enneigée » → « forest »), None for any
    other card."""
    plain = _without_snow(name)[0]
    return fold_name(ENGLISH_BASICS.get(plain, plain)) if plain in BASIC_LANDS else None


def card_names(card: dict) -> list[str]:
    """Every name a card answers to: English, French, the front face of a split card and its
    name as MTGO writes it (« Fire/Ice »)."""
    names = [card.get("card_name", ""), card.get("card_name_fr", "")]
    names += [alias for name in names for alias in face_aliases(name)]
    return [n for n in dict.fromkeys(names) if n]


def face_aliases(name: str) -> list[str]:
    """The other names of a card of two faces or halves (« Fire // Ice »): its front face, and
    its name as MTGO writes it (« Fire/Ice »)."""
    return [name.split(" // ")[0], name.replace(" // ", "/")] if " // " in name else []


def _attributes_line(card: dict) -> str:
    attributes = card.get("attributes") or {}
    parts = []
    for key, label in (("pitch", "pitch"), ("power", "puissance"), ("defense", "défense"), ("might", "might")):
        if attributes.get(key) not in (None, ""):
            parts.append(f"{label} {attributes[key]}")
    if attributes.get("power") and attributes.get("toughness"):
        parts = [p for p in parts if not p.startswith("puissance")] + [
            f"{attributes['power']}/{attributes['toughness']}"
        ]
    if card.get("card_domains"):
        parts.append("domaines " + ", ".join(card["card_domains"]))
    if card.get("card_legal_heroes"):
        parts.append("héros " + ", ".join(card["card_legal_heroes"]))
    if card.get("card_mtg_color_identity") is not None and card.get("card_mtg_legal_formats"):
        parts.append("identité " + ("".join(card["card_mtg_color_identity"]) or "incolore"))
    return " · ".join(parts)


def _title(card: dict) -> str:
    name = card.get("card_name", "")
    if card.get("card_name_fr") and card["card_name_fr"] != name:
        name += f" ({card['card_name_fr']})"
    cost = f" {card['cost']}" if card.get("cost") else ""
    return f"{name}{cost} — {card.get('type', '')}".rstrip(" —")


def card_embedding_text(card: dict) -> str:
    """The passage embedded for a card: title line then rules text."""
    return f"{_title(card)}\n{card.get('oracle_text', '')}".strip()


def card_search_text(card: dict) -> str:
    """What BM25 sees: both names, type, rules text in both languages, set."""
    return "\n".join(
        filter(
            None,
            [
                " ".join(card_names(card)),
                card.get("type", ""),
                card.get("oracle_text", ""),
                card.get("oracle_text_fr", ""),
                card.get("set_name", ""),
            ],
        )
    )


def render_full_card(card: dict) -> str:
    lines = [f"[CARD] {_title(card)}"]
    if card.get("oracle_text"):
        lines.append(card["oracle_text"])
    if card.get("oracle_text_fr"):
        lines.append(f"(VF) {card['oracle_text_fr']}")
    extra = _attributes_line(card)
    if extra:
        lines.append(extra)
    if card.get("card_mtg_legal_formats"):
        lines.append("Légal en : " + ", ".join(card["card_mtg_legal_formats"]))
    if card.get("set"):
        lines.append(f"Édition : {card.get('set_name') or card['set'].upper()} ({card['set'].upper()})")
    return "\n".join(lines)


def render_short_card(card: dict, max_chars: int = SHORT_CARD_CHARS) -> str:
    """About 100 tokens: title, then the rules text cut at a word boundary."""
    head = f"{_title(card)} : "
    text = " ".join((card.get("oracle_text") or "").split())
    room = max_chars - len(head)
    if len(text) > room:
        text = text[: max(room - 1, 0)].rsplit(" ", 1)[0] + "…"
    return (head + text).rstrip(" :")


def render_decklist(deck: dict) -> str:
    """A tournament decklist as a `[META]` passage: header, then each section in full."""
    date = f", {deck['date']}" if deck.get("date") else ""
    lines = [f"[META] {deck.get('deck_name', '')} — {deck.get('meta_format', '')}{date}"]
    for section, entries in (deck.get("sections") or {}).items():
        lines.append("Sideboard" if section == "sideboard" else section.capitalize())
        lines.extend(f"{quantity} {name}" for quantity, name in entries)
    return "\n".join(lines)


def mention_blocks(fresh: Sequence[dict], sticky: Sequence[dict]) -> str:
    """The two prompt blocks: this turn's @-cards in full, earlier ones abbreviated."""
    fresh_names = {fold_name(c.get("card_name", "")) for c in fresh}
    sticky = [c for c in sticky if fold_name(c.get("card_name", "")) not in fresh_names]
    blocks = []
    if fresh:
        blocks.append(f"{FRESH_BLOCK_TITLE}\n" + "\n\n".join(render_full_card(c) for c in fresh))
    if sticky:
        blocks.append(f"{STICKY_BLOCK_TITLE}\n" + "\n".join(f"- {render_short_card(c)}" for c in sticky))
    return "\n\n".join(blocks)


def update_sticky(sticky: Iterable[str], fresh: Iterable[str], deck_discussed: bool = False) -> list[str]:
    """Sticky mentions after this turn: FIFO of names, the newest last, capped at 20 (80 when a
    deck is being discussed). A card mentioned again moves to the end."""
    cap = STICKY_CAP_DECK if deck_discussed else STICKY_CAP
    names: list[str] = []
    for name in [*sticky, *fresh]:
        folded = fold_name(name)
        names = [n for n in names if fold_name(n) != folded] + [name]
    return names[-cap:]


def build_wrap_aliases(cards: Iterable[dict]) -> dict[str, str]:
    """{alias as written: canonical English name}; French names and front faces included."""
    aliases: dict[str, str] = {}
    for card in cards:
        canonical = card.get("card_name", "")
        for name in card_names(card):
            if len(name) >= 3:
                aliases[name] = canonical
    return aliases


# Left untouched: existing wrappers, and citations `[Booklet, p.4 : "quote"]` (quotes stay verbatim).
_WRAPPED_RE = re.compile(r"\[\[card:[^\]]+\]\]|\[[^\[\]\n]+?,\s*p(?:age|\.)?\s*\d+[^\]\n]*\]")


def auto_wrap_card_mentions(text: str, aliases: dict[str, str]) -> str:
    """Wrap bare card names as `[[card:Name]]` (longest names first, whole words, never inside
    an existing wrapper) so the page shows the card on hover."""
    if not aliases:
        return text
    pattern = re.compile(
        r"(?<![\w\[:])(" + "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True)) + r")(?![\w\]])"
    )
    by_fold = {fold_name(a): c for a, c in aliases.items()}
    out, last = [], 0
    for wrapped in _WRAPPED_RE.finditer(text):
        out.append(_wrap_plain(text[last : wrapped.start()], pattern, by_fold))
        out.append(wrapped.group(0))
        last = wrapped.end()
    out.append(_wrap_plain(text[last:], pattern, by_fold))
    return "".join(out)


def _wrap_plain(text: str, pattern: re.Pattern, by_fold: dict[str, str]) -> str:
    return pattern.sub(lambda m: f"[[card:{by_fold.get(fold_name(m.group(1)), m.group(1))}]]", text)


def wrap_card_names(answer: str, cards: Iterable[dict]) -> str:
    """An answer with the names of the given cards (mentioned, retrieved) wrapped `[[card:Name]]`."""
    return auto_wrap_card_mentions(answer, build_wrap_aliases(cards))


_DECK_LINE_RE = re.compile(r"\d+\s*[×xX]\s*\[\[card:")


def deck_in_discussion(question: str, history: Sequence[dict] = ()) -> bool:
    """A deck is being discussed: the question speaks of one, or an earlier answer was a list."""
    if re.search(r"\bdecks?\b|\bdecklists?\b", fold_name(question)):
        return True
    return any(_DECK_LINE_RE.search(str(turn.get("answer", ""))) for turn in history if isinstance(turn, dict))


def capped_sticky(names: Sequence[str], question: str, history: Sequence[dict] = ()) -> list[str]:
    """The sticky mentions the prompt shows: the newest 20, or 80 while a deck is discussed."""
    return update_sticky(names, [], deck_discussed=deck_in_discussion(question, history))
