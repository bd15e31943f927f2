"""Synergy expansion for card games (docs/architecture.md, « synergy-expansion »): decompose the question into
{colors, format, types, themes} (the LLM when available, else rules over the card vocabulary),
turn that into Qdrant filters, search several query variants, and match set names
("Strixhaven" → STX). Plain Python.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field, replace
from typing import Sequence

from rag.cards import fold_name
from rag.fusion import rrf
from rag.llm.base import LLMError
from rag.sparse import query_vector
from rag.store import Filter, Hit, VectorStore

log = logging.getLogger(__name__)

MTG_COLORS = "WUBRG"
RIFTBOUND_DOMAINS = ("Fury", "Calm", "Mind", "Body", "Chaos", "Order")

COLOR_WORDS = {
    "W": ("white", "blanc", "blanche", "blancs", "blanches", "mono-white", "mono-blanc"),
    "U": ("blue", "bleu", "bleue", "bleus", "bleues", "mono-blue", "mono-bleu"),
    "B": ("black", "noir", "noire", "noirs", "noires", "mono-black", "mono-noir"),
    "R": ("red", "rouge", "rouges", "mono-red", "mono-rouge"),
    "G": ("green", "vert", "verte", "verts", "vertes", "mono-green", "mono-vert"),
}
COLOR_GROUPS = {
    "azorius": "WU", "dimir": "UB", "rakdos": "BR", "gruul": "RG", "selesnya": "GW",
    "orzhov": "WB", "izzet": "UR", "golgari": "BG", "boros": "RW", "simic": "GU",
    "esper": "WUB", "grixis": "UBR", "jund": "BRG", "naya": "RGW", "bant": "GWU",
    "abzan": "WBG", "jeskai": "URW", "sultai": "BGU", "mardu": "RWB", "temur": "GUR",
}  # fmt: skip
FORMATS = {
    "standard": ("standard",), "pioneer": ("pioneer",), "modern": ("modern", "moderne"),
    "legacy": ("legacy",), "vintage": ("vintage",), "pauper": ("pauper",),
    "commander": ("commander", "edh"), "historic": ("historic", "historique"), "explorer": ("explorer",),
    "timeless": ("timeless",), "brawl": ("brawl", "historic brawl", "brawl historique"),
    "standardbrawl": ("standard brawl", "brawl standard"), "duel": ("duel commander",),
    "alchemy": ("alchemy",), "premodern": ("premodern",),
    "classic constructed": ("classic constructed", "cc"), "blitz": ("blitz",), "commoner": ("commoner",),
}  # fmt: skip
TYPE_WORDS = {
    "creature": ("creature", "creatures", "créature", "créatures"),
    "instant": ("instant", "instants", "éphémère", "éphémères"),
    "sorcery": ("sorcery", "sorceries", "rituel", "rituels"),
    "enchantment": ("enchantment", "enchantments", "enchantement", "enchantements"),
    "artifact": ("artifact", "artifacts", "artefact", "artefacts"),
    "planeswalker": ("planeswalker", "planeswalkers"),
    "land": ("land", "lands", "terrain", "terrains"),
    "unit": ("unit", "units", "unité", "unités"),
    "spell": ("spell", "spells", "sort", "sorts"),
    "gear": ("gear", "équipement", "équipements"),
    "rune": ("rune", "runes"),
    "battlefield": ("battlefield", "battlefields", "champ de bataille", "champs de bataille"),
    "equipment": ("equipment",),
    "weapon": ("weapon", "weapons", "arme", "armes"),
    "reaction": ("reaction", "réaction", "defense reaction", "réaction de défense"),
}
# theme → (words that reveal it, in French or English; what the cards say, in English)
THEMES = {
    "tokens": (("token", "tokens", "jeton", "jetons"), "create creature token"),
    "sacrifice": (("sacrifice", "sacrifier", "aristocrats"), "sacrifice a creature"),
    "graveyard": (("graveyard", "cimetière", "reanimate", "réanimation", "recursion"), "return from your graveyard"),
    "counters": (("+1/+1", "counter", "counters", "marqueur", "marqueurs"), "put a +1/+1 counter"),
    "flying": (("flying", "fliers", "vol", "volant", "volants", "volantes"), "flying"),
    "lifegain": (("lifelink", "lifegain", "lien de vie", "gain de vie", "gagner des points de vie"), "gain life lifelink"),
    "artifacts": (("artifacts", "artefacts"), "artifact you control"),
    "spells": (("prowess", "prouesse", "spellslinger", "non-créature"), "instant or sorcery spell"),
    "draw": (("draw", "pioche", "piocher", "card advantage"), "draw a card"),
    "discard": (("discard", "défausse", "défausser"), "discards a card"),
    "mill": (("mill", "meule", "meuler"), "mill cards"),
    "ramp": (("ramp", "accélération", "mana ramp"), "add mana search for a land"),
    "burn": (("burn", "dégâts directs", "brûlure"), "deals damage to any target"),
    "removal": (("removal", "destroy", "détruire", "destruction", "exile"), "destroy target creature"),
    "counterspells": (("counterspell", "contresort", "contre-sort", "contrecarrer"), "counter target spell"),
    "kicker": (("kicker", "kick", "kické"), "kicker"),
    "legendary": (("legendary", "légendaire", "légendaires", "historic"), "legendary historic"),
    "aggro": (("aggro", "agressif", "agressive", "tempo"), "haste attacks"),
    "control": (("control", "contrôle"), "counter target spell destroy draw"),
    "wizards": (("wizard", "wizards", "sorcier", "sorciers"), "Wizard"),
    "knights": (("knight", "knights", "chevalier", "chevaliers"), "Knight"),
    "saprolings": (("saproling", "saprolings", "thallid", "fungus"), "Saproling Fungus"),
    "dragons": (("dragon", "dragons"), "Dragon"),
    "elves": (("elf", "elves", "elfe", "elfes"), "Elf"),
    "goblins": (("goblin", "goblins", "gobelin", "gobelins"), "Goblin"),
    "zombies": (("zombie", "zombies"), "Zombie"),
    "angels": (("angel", "angels", "ange", "anges"), "Angel"),
    "vampires": (("vampire", "vampires"), "Vampire"),
    "humans": (("human", "humans", "humain", "humains"), "Human"),
    "combo": (("combo",), "combo go again"),
}
# Sets players name that a catalog may spell differently (the catalog's own names come first).
KNOWN_SETS = {
    "strixhaven": "stx", "dominaria": "dom", "dominaria united": "dmu", "kaladesh": "kld",
    "ixalan": "xln", "zendikar rising": "znr", "kamigawa": "neo", "innistrad": "isd",
    "theros": "ths", "eldraine": "eld", "bloomburrow": "blb", "duskmourn": "dsk",
    "thunder junction": "otj", "murders at karlov manor": "mkm", "karlov manor": "mkm",
    "lost caverns of ixalan": "lci", "wilds of eldraine": "woe", "march of the machine": "mom",
    "phyrexia": "one", "the brothers' war": "bro", "brothers' war": "bro", "aetherdrift": "dft",
    "tarkir": "tdm", "edge of eternities": "eoe", "final fantasy": "fin",
}  # fmt: skip


@dataclass(frozen=True)
class Decomposition:
    colors: tuple[str, ...] = ()
    format: str = ""
    types: tuple[str, ...] = ()
    themes: tuple[str, ...] = ()
    sets: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    heroes: tuple[str, ...] = ()
    source: str = "rules"
    extra_terms: tuple[str, ...] = field(default=(), compare=False)

    def as_dict(self) -> dict:
        return {
            "colors": list(self.colors), "format": self.format, "types": list(self.types),
            "themes": list(self.themes), "sets": list(self.sets), "domains": list(self.domains),
            "heroes": list(self.heroes), "source": self.source,
        }  # fmt: skip


def _has_word(folded_text: str, phrase: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(fold_name(phrase)) + r"(?!\w)", folded_text) is not None


def canonical_format(name: str) -> str:
    """The format as card payloads and tournament lists hold it (« Modern », « moderne » →
    « modern », « EDH » → « commander »); a name we do not know is only folded."""
    folded = fold_name(str(name or ""))
    return next((fmt for fmt, words in FORMATS.items() if folded == fmt or folded in map(fold_name, words)), folded)


def match_sets(question: str, set_names: dict[str, str] | None = None) -> tuple[str, ...]:
    """Set codes named in the question: the catalog's set names (or their part before « : »),
    a few well-known names, or an upper-case code written as such (« STX »)."""
    folded = fold_name(question)
    names: dict[str, str] = {}
    for code, name in (set_names or {}).items():
        for candidate in (name, name.split(":")[0]):
            if len(candidate.strip()) >= 4:
                names[fold_name(candidate)] = code.lower()
    for name, code in KNOWN_SETS.items():
        names.setdefault(name, code)
    found = [code for name, code in sorted(names.items(), key=lambda kv: -len(kv[0])) if _has_word(folded, name)]
    codes = {c.lower() for c in (set_names or {})}
    found += [w.lower() for w in re.findall(r"\b[A-Z0-9]{3,4}\b", question) if w.lower() in codes]
    return tuple(dict.fromkeys(found))


def _format_named(folded: str) -> str:
    """The format a question names, the first in FORMATS' order, unless a longer name holds
    it: « Standard Brawl » is standardbrawl, « Duel Commander » duel; « explorer un deck
    modern » stays modern (« explorer » is a French verb too)."""
    named = [(fmt, word) for fmt, words in FORMATS.items() for word in words if _has_word(folded, word)]
    if not named:
        return ""
    fmt, word = named[0]
    for other, longer in named[1:]:
        if len(longer) > len(word) and _has_word(fold_name(longer), word):
            fmt, word = other, longer
    return fmt


def decompose_with_rules(question: str, game_kind: str = "mtg", set_names: dict[str, str] | None = None,
                         heroes: Sequence[str] = ()) -> Decomposition:  # fmt: skip
    folded = fold_name(question)
    colors = {c for c, words in COLOR_WORDS.items() if any(_has_word(folded, w) for w in words)}
    for group, letters in COLOR_GROUPS.items():
        if _has_word(folded, group):
            colors.update(letters)
    fmt = _format_named(folded)
    types = [t for t, words in TYPE_WORDS.items() if any(_has_word(folded, w) for w in words)]
    themes = [t for t, (words, _) in THEMES.items() if any(_has_word(folded, w) for w in words)]
    domains = [d for d in RIFTBOUND_DOMAINS if _has_word(folded, d)] if game_kind == "riftbound" else []
    named_heroes = [h for h in heroes if _has_word(folded, h)]
    return Decomposition(
        colors=tuple(c for c in MTG_COLORS if c in colors) if game_kind == "mtg" else (),
        format=fmt,
        types=tuple(types),
        themes=tuple(themes),
        sets=match_sets(question, set_names),
        domains=tuple(domains),
        heroes=tuple(named_heroes),
    )


DECOMPOSE_SYSTEM = (
    "Tu analyses une question sur un jeu de cartes à collectionner. Réponds uniquement par un objet JSON "
    '{"colors": [lettres WUBRG], "format": "standard|modern|…|", "types": [types de cartes en anglais, minuscules], '
    '"themes": [mécaniques ou tribus en anglais, minuscules]}. Aucune prose.'
)


def decompose(question: str, llm=None, *, game_kind: str = "mtg", set_names: dict[str, str] | None = None,
              heroes: Sequence[str] = (), timeout: float = 20.0) -> Decomposition:  # fmt: skip
    """The LLM's reading of the question when one answers with valid JSON, else the rules.
    Sets always come from the matcher (the catalog knows its codes, the LLM may not)."""
    rules = decompose_with_rules(question, game_kind, set_names, heroes)
    if llm is None or not getattr(llm, "available", False):
        return rules
    try:
        raw = llm.complete(DECOMPOSE_SYSTEM, question, model="haiku", timeout=timeout)
        data = json.loads(re.search(r"\{.*\}", raw, re.S).group(0))
        colors = tuple(c for c in MTG_COLORS if c in {str(x).upper()[:1] for x in data.get("colors") or []})
        return replace(
            rules,
            colors=colors if game_kind == "mtg" else (),
            format=canonical_format(data.get("format") or rules.format),
            types=tuple(str(t).lower() for t in data.get("types") or []) or rules.types,
            themes=tuple(str(t).lower() for t in data.get("themes") or []) or rules.themes,
            source="llm",
        )
    except (LLMError, ValueError, TypeError, AttributeError) as exc:  # a failed call or no JSON: the rules' reading stands
        log.info("synergy decomposition by LLM failed, rules used: %s", exc)
        return rules


def card_filter(decomposition: Decomposition, game_kind: str, with_types: bool = False) -> Filter:
    """Payload filter: legal in the format, color identity ⊆ the colors (no card with another
    color), domains ⊆ the domains, playable by the heroes, from the sets."""
    spec: dict = {}
    if game_kind == "mtg":
        if decomposition.format:
            spec["card_mtg_legal_formats"] = decomposition.format
        others = [c for c in MTG_COLORS if c not in decomposition.colors]
        if decomposition.colors and others:
            spec["!card_mtg_color_identity"] = others
    if game_kind == "riftbound" and decomposition.domains:
        spec["!card_domains"] = [d for d in RIFTBOUND_DOMAINS if d not in decomposition.domains]
    if game_kind == "fab" and decomposition.heroes:
        spec["card_legal_heroes"] = list(decomposition.heroes)
    if decomposition.sets:
        spec["set"] = list(decomposition.sets)
    if with_types and decomposition.types:
        spec["card_types"] = list(decomposition.types)
    return spec or None


def query_variants(question: str, decomposition: Decomposition, limit: int = 4) -> list[str]:
    """The question, then what the cards would say (English rules text) for its themes and types."""
    variants = [question]
    theme_terms = [THEMES[t][1] for t in decomposition.themes if t in THEMES]
    theme_terms += [t for t in decomposition.themes if t not in THEMES]
    if theme_terms or decomposition.types:
        variants.append(" ".join([*decomposition.types, *theme_terms]))
    variants += theme_terms[:2]
    variants += list(decomposition.extra_terms)
    return list(dict.fromkeys(v for v in variants if v.strip()))[:limit]


def synergy_search(store: VectorStore, embedder, collection: str, question: str, decomposition: Decomposition,
                   game_kind: str = "mtg", limit: int = 30) -> list[Hit]:  # fmt: skip
    """Cards for a synergy question: dense + sparse per query variant under the structural
    filter, fused by RRF; the filter is relaxed when it leaves nothing."""
    query_filter = card_filter(decomposition, game_kind)
    lists = []
    for variant in query_variants(question, decomposition):
        dense = embedder.embed_query(variant)
        lists.append(store.search_dense(collection, dense, limit=limit, filter=query_filter))
        lists.append(store.search_sparse(collection, query_vector(variant), limit=limit, filter=query_filter))
    hits = rrf(lists, limit=limit)
    if not hits and query_filter is not None:
        return synergy_search(store, embedder, collection, question, Decomposition(), game_kind, limit)
    return hits


def meta_search(
    store: VectorStore,
    embedder,
    collection: str,
    question: str,
    format: str = "",
    limit: int = 5,
    *,
    meta_types: Sequence[str] = ("tournament_deck",),
) -> list[Hit]:
    """Meta documents of `meta_types` (tournament decklists, card ratings…) close to the
    question, of the asked format when one is named: dense + sparse, fused by RRF."""
    query_filter = {"meta_type": list(meta_types), **({"meta_format": format} if format else {})}
    dense = store.search_dense(collection, embedder.embed_query(question), limit=limit, filter=query_filter)
    sparse = store.search_sparse(collection, query_vector(question), limit=limit, filter=query_filter)
    return rrf([dense, sparse], limit=limit)
