"""DeckSpec: what the deck must be (format, section sizes, copy limit, roles, anchors), from
the LLM's JSON when it validates against the schema, else the game's defaults
(MTG Standard 60+15 max 4; Riftbound 40+0, max 3, 12 runes, 3 battlefields; FAB CC 60+0 max 3)."""

from __future__ import annotations

import json
import logging
import re
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from rag.llm.base import LLMError
from rag.synergy import canonical_format

from . import wording

log = logging.getLogger(__name__)

GameKind = Literal["mtg", "fab", "riftbound"]

# Main-deck roles per game, with the French heading each gets in the decklist.
ROLES = {
    "mtg": {"creatures": "Créatures", "spells": "Sorts", "lands": "Terrains"},
    "riftbound": {"units": "Unités", "spells": "Sorts", "gear": "Équipements"},
    "fab": {
        "attacks": "Actions d'attaque",
        "actions": "Actions",
        "defense_reactions": "Réactions de défense",
        "instants": "Éphémères",
    },
}
DEFAULTS = {
    "mtg": dict(format="standard", main=60, sideboard=15, max_copies=4,
                roles={"creatures": 20, "spells": 16, "lands": 24}),
    "riftbound": dict(format="constructed", main=40, sideboard=0, max_copies=3, runes=12, battlefields=3,
                      roles={"units": 26, "spells": 10, "gear": 4}),
    "fab": dict(format="classic constructed", main=60, sideboard=0, max_copies=3,
                roles={"attacks": 32, "actions": 12, "defense_reactions": 10, "instants": 6}),
}  # fmt: skip
# (main, sideboard, max copies) of the formats whose decks differ from the game's default
# Brawl is Arena's 100-card format (Historic Brawl until 2024, Scryfall's `brawl`), Standard Brawl its 60-card one.
MTG_LIMITED_FORMATS = {"commander": (100, 0, 1), "duel": (100, 0, 1), "brawl": (100, 0, 1), "standardbrawl": (60, 0, 1)}
FAB_FORMATS = {"blitz": (40, 0, 2), "commoner": (40, 0, 2)}
OTHER_FORMATS = {"mtg": MTG_LIMITED_FORMATS, "fab": FAB_FORMATS}
NO_MAXIMUM = 1_000_000  # no rule caps a constructed main deck


class DeckSpec(BaseModel):
    game: GameKind
    format: str = Field(min_length=1, max_length=40)
    colors: list[Literal["W", "U", "B", "R", "G"]] = []
    domains: list[str] = []
    hero: str = ""
    commander: str = ""  # Magic Commander and Brawl: the card that leads (rag.deckbuilding.commander)
    partner: str = ""  # the second commander of a pair that may lead together (Partner, Background…)
    main: int = Field(ge=20, le=250)
    sideboard: int = Field(default=0, ge=0, le=30)
    runes: int = Field(default=0, ge=0, le=30)
    battlefields: int = Field(default=0, ge=0, le=10)
    max_copies: int = Field(ge=1, le=99)
    roles: dict[str, int] = {}
    anchors: list[str] = []
    archetype: str = ""
    themes: list[str] = []

    @field_validator("format", mode="before")
    @classmethod
    def format_as_payloads_hold_it(cls, value):
        # The LLM writes « Modern »; legalities and tournament lists hold « modern ».
        return canonical_format(value) if isinstance(value, str) else value

    @field_validator("hero", mode="before")
    @classmethod
    def hero_as_legalities_name_it(cls, value):
        # The LLM writes « Katsu, the Wanderer »; card_legal_heroes holds « Katsu ».
        return hero_name(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def roles_fill_the_main_deck(self):
        known = ROLES[self.game]
        if not self.roles or any(r not in known or n < 0 for r, n in self.roles.items()):
            self.roles = _scaled_roles(self.game, self.main)
        elif sum(self.roles.values()) != self.main:
            raise ValueError(f"roles add up to {sum(self.roles.values())}, not {self.main}")
        return self

    @property
    def leaders(self) -> list[str]:
        """The commander, and its partner when two lead together."""
        return [name for name in (self.commander, self.partner) if name]

    def section_sizes(self) -> dict[str, int]:
        sizes = {"main": self.main, "sideboard": self.sideboard}
        if self.game == "riftbound":
            sizes.update(runes=self.runes, battlefields=self.battlefields)
        return sizes

    def section_bounds(self, by_the_rules: bool = False) -> dict[str, tuple[int, int]]:
        """(at least, at most) cards per section. A built deck: the exact sizes. By the rules,
        a Magic or Flesh and Blood constructed deck (not singleton, not Blitz) holds at least
        its main size and up to its sideboard's (« 60 cards minimum, up to 15 in the
        sideboard »); the other formats and Riftbound's sections stay exact."""
        bounds = {section: (size, size) for section, size in self.section_sizes().items()}
        if by_the_rules and self.game in ("mtg", "fab") and self.max_copies > 2:
            bounds.update(main=(self.main, NO_MAXIMUM), sideboard=(0, self.sideboard))
        return bounds

    def summary(self, words_in: str = "fr") -> str:
        parts = [str(self.main), str(self.sideboard)]
        if self.runes:
            parts.append(wording.text("runes", words_in, count=self.runes))
        if self.battlefields:
            parts.append(wording.text("battlefields", words_in, count=self.battlefields))
        return " + ".join(parts)


def hero_name(card_name: str) -> str:
    """A Flesh and Blood hero as card legalities name it: the first word of the card's name
    (« Katsu, the Wanderer » → « Katsu »); games.deck_requests.hero_names applies it to a catalog."""
    return (card_name.split(",")[0].split() or [""])[0]


def _scaled_roles(game: str, main: int) -> dict[str, int]:
    base = DEFAULTS[game]["roles"]
    total = sum(base.values())
    roles = {role: round(count * main / total) for role, count in base.items()}
    first = next(iter(roles))
    roles[first] += main - sum(roles.values())
    return roles


def default_spec(game: str, *, format: str = "", colors=(), domains=(), hero: str = "", anchors=(), themes=()) -> DeckSpec:
    """The game's defaults, with what the question and the anchors already tell."""
    values = {**DEFAULTS[game], "game": game}
    format = canonical_format(format)  # « EDH » → commander, « Standard Brawl » → standardbrawl; blank: the default
    if format:
        values["format"] = format
        if format in OTHER_FORMATS.get(game, {}):
            values["main"], values["sideboard"], values["max_copies"] = OTHER_FORMATS[game][format]
            values["roles"] = _scaled_roles(game, values["main"]) if game == "fab" else {}
    return DeckSpec(**values, colors=list(colors), domains=list(domains), hero=hero,
                    anchors=list(anchors), themes=list(themes))  # fmt: skip


SPEC_SYSTEM_PROMPT = (
    "Tu prépares la construction d'un deck. Réponds uniquement par un objet JSON avec les clés : "
    "game, format, colors (lettres WUBRG, Magic), domains (Riftbound), hero (Flesh and Blood), main, "
    "sideboard, runes, battlefields, max_copies, roles (rôle → nombre de cartes, somme = main), "
    "anchors, archetype, themes. Aucune prose."
)


def spec_prompt(question: str, fallback: DeckSpec) -> str:
    return (
        f"Question du joueur : {question}\n\n"
        f"Valeurs par défaut du jeu (à garder sauf demande explicite) :\n{fallback.model_dump_json()}\n"
        f"Rôles possibles : {', '.join(ROLES[fallback.game])}."
    )


def parse_spec(raw: str, fallback: DeckSpec) -> DeckSpec | None:
    """The LLM's spec if its JSON validates, else None. Anchors, the commander and the game are
    ours, not its."""
    match = re.search(r"\{.*\}", raw or "", re.S)
    if not match:
        return None
    try:
        data = json.loads(match.group(0))
        data.update(game=fallback.game, anchors=fallback.anchors, commander="", partner="")  # the leaders are ours too (build.prepare)
        others = OTHER_FORMATS.get(fallback.game, {})
        if fallback.format in others:  # the format the question named (« Standard Brawl ») stays
            data["format"] = fallback.format
        fixed = others.get(canonical_format(str(data.get("format", ""))))
        if fixed:  # a Commander deck is 100 cards, a Blitz one 40, whatever the LLM writes
            data["main"], data["sideboard"], data["max_copies"] = fixed
            data["roles"] = {}  # scaled to the size (DeckSpec's validator)
        for key in ("colors", "domains", "hero", "themes"):
            if not data.get(key):
                data[key] = getattr(fallback, key)
        return DeckSpec.model_validate(data)
    except (ValueError, ValidationError, TypeError) as exc:
        log.info("deck spec from the LLM rejected: %s", exc)
        return None


def request_spec(question: str, llm, fallback: DeckSpec, timeout: float = 30.0) -> tuple[DeckSpec, str]:
    """(spec, "llm" | "defaults")."""
    if llm is None or not getattr(llm, "available", False):
        return fallback, "defaults"
    try:
        raw = llm.complete(SPEC_SYSTEM_PROMPT, spec_prompt(question, fallback), model="haiku", timeout=timeout)
    except LLMError as exc:  # an LLM failure never blocks the deck: defaults
        log.info("deck spec call failed, defaults used: %s", exc)
        return fallback, "defaults"
    spec = parse_spec(raw, fallback)
    return (spec, "llm") if spec else (fallback, "defaults")
