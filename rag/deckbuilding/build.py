"""The deckbuilding pipeline (docs/architecture.md, « Mode deckbuilding », steps 3–10): spec, anchors, synergy
retrieval, eligible pool, inspiration decklists, role candidates, prompt, generation with up
to 2 retries (a visible separator streamed before each), parsing and validation. Without an
LLM the deck is built from the pool (offline.py) so the mode always answers; an LLM failing
on the way (a timeout, the quota) leaves what it streamed, says why (wording.llm_failure), then
the offline list follows, and the answer kept is all of it, as the player saw it."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from rag.cards import auto_wrap_card_mentions, build_wrap_aliases, fold_name
from rag.llm.base import LLMError
from rag.synergy import Decomposition, decompose, synergy_search

from .commander import choose_leader, commander_verdict, has_commander, identity_union, leaders_of
from .export import exports_for
from .offline import build_offline_deck, render_deck_markdown
from .parse_validate import ParsedDeck, Verdict, card_key_from, copy_limits, format_legality, parse_deck_response, validate_deck
from .pool import eligible_pool, fetch_inspiration_decklists, inspiration_counts, is_eligible, select_role_candidates
from . import wording
from .prompt import DECKBUILDING_SYSTEM_PROMPT, build_deck_prompt, format_retry_prompt
from .spec import DeckSpec, default_spec, request_spec

log = logging.getLogger(__name__)

MAX_RETRIES = 2
Emit = Callable[[str, dict], None]


@dataclass
class DeckRequest:
    game: str  # "mtg" | "fab" | "riftbound"
    question: str
    fresh: Sequence[dict] = ()
    sticky: Sequence[dict] = ()
    history: Sequence[dict] = ()
    set_names: dict[str, str] = field(default_factory=dict)
    heroes: Sequence[str] = ()
    words_in: str = "fr"  # the reader's language of the answer's own words (wording.py)

    @property
    def anchors(self) -> list[dict]:
        """Fresh then sticky mentions, once each: all are mandatory in the deck."""
        seen, anchors = set(), []
        for card in [*self.fresh, *self.sticky]:
            key = fold_name(card.get("card_name", ""))
            if key and key not in seen:
                seen.add(key)
                anchors.append(card)
        return anchors


@dataclass
class DeckTools:
    store: object
    embedder: object
    llm: object
    card_collection: str
    meta_collection: str
    is_known: Callable[[str], bool] | None = None
    card_key: Callable[[str], str] | None = None  # the catalog's; else one from the pool and anchors
    # the catalog's payloads of names as written (a card the list holds from outside the pool
    # is judged too: a Commander deck's colour identity); else only the pool's and anchors' are
    cards_named: Callable[[list[str]], dict[str, dict]] | None = None
    model: str = "opus"
    timeout: float | None = None
    spec_timeout: float = 30.0


@dataclass
class DeckResult:
    text: str
    spec: DeckSpec
    spec_source: str
    verdict: Verdict
    deck: ParsedDeck
    attempts: int
    source: str  # "llm" | "offline"
    exports: dict[str, str]
    inspiration: list[str]

    def done_payload(self) -> dict:
        """What the `done` event carries beyond the answer: the verdict and the exports."""
        return {
            "deck": {
                "validation": self.verdict.as_dict(),
                "spec": self.spec.model_dump(),
                "specSource": self.spec_source,
                "attempts": self.attempts,
                "builder": self.source,
                "exports": self.exports,
                "inspiration": self.inspiration,
            }
        }


def _fallback_spec(request: DeckRequest, decomposition: Decomposition) -> DeckSpec:
    anchors = request.anchors
    colors = set(decomposition.colors)
    domains = set(decomposition.domains)
    for card in anchors:
        colors.update(card.get("card_mtg_color_identity") or [])
        domains.update(card.get("card_domains") or [])
    hero = (decomposition.heroes or [""])[0]
    if request.game == "fab" and not hero:
        hero = next((h for a in anchors for h in a.get("card_legal_heroes") or []), "")
    return default_spec(
        request.game,
        format=decomposition.format,
        colors=[c for c in "WUBRG" if c in colors],
        domains=sorted(domains),
        hero=hero,
        anchors=[a["card_name"] for a in anchors],
        themes=decomposition.themes,
    )


def _with_anchor_colors(spec: DeckSpec, anchors: list[dict]) -> DeckSpec:
    """Anchors are mandatory: their colors (domains) belong to the deck whatever the spec says."""
    if spec.game == "mtg" and spec.colors:
        colors = set(spec.colors) | identity_union(anchors)
        return spec.model_copy(update={"colors": [c for c in "WUBRG" if c in colors]})
    if spec.game == "riftbound" and spec.domains:
        domains = set(spec.domains) | {d for a in anchors for d in a.get("card_domains") or []}
        return spec.model_copy(update={"domains": sorted(domains)})
    return spec


def _colors_from_hits(hits, spec: DeckSpec) -> DeckSpec:
    """No color asked nor implied by an anchor: the two colors most present among the best cards
    (a colourless commander's deck stays colourless)."""
    if spec.game != "mtg" or spec.colors or spec.commander:
        return spec
    counts: dict[str, int] = {}
    for hit in hits[:20]:
        for color in hit.payload.get("card_mtg_color_identity") or []:
            counts[color] = counts.get(color, 0) + 1
    colors = sorted(counts, key=counts.get, reverse=True)[:2]
    return spec.model_copy(update={"colors": [c for c in "WUBRG" if c in colors]})


def prepare(request: DeckRequest, tools: DeckTools):
    """Steps 3–9: spec, synergy hits, pool, inspiration decklists, role candidates."""
    decomposition = decompose(request.question, tools.llm, game_kind=request.game, set_names=request.set_names,
                              heroes=request.heroes)  # fmt: skip
    spec, spec_source = request_spec(request.question, tools.llm, _fallback_spec(request, decomposition), tools.spec_timeout)
    spec = _led(_with_anchor_colors(spec, request.anchors), leaders_of(request.anchors, spec))
    search = replace(
        decomposition,
        colors=tuple(spec.colors),
        format=spec.format if request.game == "mtg" else decomposition.format,
        domains=tuple(spec.domains),
        sets=(),
        extra_terms=tuple(a.get("oracle_text", "")[:200] for a in request.anchors if a.get("oracle_text")),
    )
    hits = synergy_search(tools.store, tools.embedder, tools.card_collection, request.question, search,
                          game_kind=request.game, limit=60)  # fmt: skip
    spec = _colors_from_hits(hits, spec)
    synergy = {fold_name(h.payload.get("card_name", "")): h.score for h in hits}
    pool = eligible_pool(tools.store, tools.card_collection, spec)
    leader = None
    if has_commander(spec) and not spec.commander:  # no mandatory card leads: the pool's best legend does
        ranked = sorted(pool, key=lambda c: -synergy.get(fold_name(c.get("card_name", "")), 0.0))
        leader = choose_leader(ranked, spec, request.anchors)
        spec = _led(spec, [leader] if leader is not None else [])
        pool = [card for card in pool if is_eligible(card, spec)]
    decklists = fetch_inspiration_decklists(tools.store, tools.embedder, tools.meta_collection, request.question, spec)
    candidates = select_role_candidates(pool, spec, request.anchors, inspiration_counts(decklists), synergy)
    if leader is not None and fold_name(leader["card_name"]) not in {fold_name(a.get("card_name", "")) for a in request.anchors}:
        candidates["commander"] = [leader]
    return spec, spec_source, hits, pool, decklists, candidates


def _led(spec: DeckSpec, leaders: list[dict]) -> DeckSpec:
    """A Commander or Brawl spec led by `leaders` (one, or a pair): its colours are their
    identity together."""
    if not leaders:
        return spec
    identity = identity_union(leaders)
    names = [leader["card_name"] for leader in leaders]
    return spec.model_copy(update={"commander": names[0], "partner": names[1] if len(names) > 1 else "",
                                   "colors": [c for c in "WUBRG" if c in identity]})


# A list's verdict in a reader's language: sizes, copies, anchors, unknown cards, and a
# Commander deck's commander and colour identity.
Check = Callable[[ParsedDeck, str], Verdict]


def generate_with_retries(llm, prompt: str, spec: DeckSpec, check: Check, emit: Emit, *, model: str = "opus",
                          timeout: float | None = None, max_retries: int = MAX_RETRIES, words_in: str = "fr"):  # fmt: skip
    """Stream a list, check it, ask again with the issues (at most `max_retries` times; the
    model reads them in French, like its prompt). Returns (text, parsed deck, verdict in
    `words_in`, attempts); the last list is kept even if invalid."""
    current = prompt
    for attempt in range(1, max_retries + 2):
        if attempt > 1:
            emit("token", {"text": wording.text("retry", words_in)})
        parts = []
        for delta in llm.stream(DECKBUILDING_SYSTEM_PROMPT, current, model=model, timeout=timeout):
            if delta:
                parts.append(delta)
                emit("token", {"text": delta})
        text = "".join(parts)
        deck = parse_deck_response(text, spec.game)
        verdict = check(deck, "fr")
        if verdict.valid or attempt > max_retries:
            break
        log.info("deck attempt %d invalid: %s", attempt, "; ".join(verdict.issues))
        current = format_retry_prompt(prompt, verdict.issues, spec)
    if not verdict.valid:
        log.warning("deck still invalid after %d attempts: %s", attempt, "; ".join(verdict.issues))
    if wording.reader(words_in) != "fr":
        verdict = check(deck, words_in)
    return text, deck, verdict, attempt


def _offline_text(request: DeckRequest, spec: DeckSpec, candidates, decklists) -> tuple[str, ParsedDeck]:
    deck = build_offline_deck(spec, candidates, request.anchors)
    lang = request.words_in
    colors = "-".join(wording.color(c, lang) for c in spec.colors) or "/".join(spec.domains) or spec.hero
    title = f"Deck {spec.format.capitalize()} {colors} ({spec.summary(lang)})".replace("  ", " ")
    notes = ["", wording.text("offline_note", lang)]
    if request.anchors:
        notes.append(wording.text("anchors_note", lang, cards=", ".join(f"[[card:{a['card_name']}]]" for a in request.anchors)))
    if decklists:
        notes.append(wording.text("inspiration_note", lang, decks=", ".join(d.get("deck_name", "") for d in decklists)))
    return render_deck_markdown(deck, spec, title, lang) + "\n".join(notes) + "\n", deck


def _generate(request: DeckRequest, tools: DeckTools, prompt: str, spec: DeckSpec, check: Check, emit: Emit):
    """(text, deck, verdict, attempts) of the LLM's list and "", or None and what the player saw
    when the LLM failed on the way: what it streamed (every attempt), then the note saying why."""
    streamed: list[str] = []

    def emit_kept(event: str, data: dict) -> None:
        if event == "token":
            streamed.append(data.get("text", ""))
        emit(event, data)

    try:
        return generate_with_retries(
            tools.llm, prompt, spec, check, emit_kept, model=tools.model, timeout=tools.timeout, words_in=request.words_in,
        ), ""  # fmt: skip
    except LLMError as exc:  # what was streamed stays, the failure is said, then the offline list
        log.warning("deck generation failed, built offline instead: %s", exc)
        return None, wording.failed_on_the_way(exc, "".join(streamed), request.words_in, emit)


def _catalog_of(deck: ParsedDeck, cards_by_name: dict[str, dict], tools: DeckTools) -> dict[str, dict]:
    """The payload of each name of the list: the pool's and anchors', then the catalog's for
    the others (a card the LLM took from outside the pool)."""
    others = [name for name in deck.copies() if name not in cards_by_name]
    return {**(tools.cards_named(others) if tools.cards_named and others else {}), **cards_by_name}


def _checker(spec: DeckSpec, anchors: list[dict], tools: DeckTools, cards_by_name: dict[str, dict]) -> Check:
    card_key = tools.card_key or card_key_from(list(cards_by_name.values()))  # copies per card, not per spelling

    def check(deck: ParsedDeck, words_in: str) -> Verdict:
        catalog = _catalog_of(deck, cards_by_name, tools)
        # the built list is held to the format as a pasted one is (an anchor or a card the LLM
        # took from outside the pool may be banned there): an illegal card is asked again
        legal = format_legality(spec, lambda name: (catalog.get(name) or {}).get("card_mtg_legal_formats"))
        verdict = validate_deck(deck, spec, anchors, tools.is_known, card_key, words_in, legal=legal,
                                limit=copy_limits(spec, catalog.get))  # a restricted card: one copy; Relentless Rats: any
        if not has_commander(spec):
            return verdict
        issues, warnings = commander_verdict(deck, spec, catalog, words_in)
        return replace(verdict, valid=verdict.valid and not issues, issues=verdict.issues + issues,
                       warnings=verdict.warnings + warnings)  # fmt: skip

    return check


def build_deck(request: DeckRequest, tools: DeckTools, emit: Emit) -> DeckResult:
    spec, spec_source, hits, pool, decklists, candidates = prepare(request, tools)
    anchors = request.anchors
    cards_by_name = {c["card_name"]: c for c in [*pool, *anchors, *candidates.get("commander", [])]}
    check = _checker(spec, anchors, tools, cards_by_name)
    source, attempts, shown = "offline", 1, ""
    if getattr(tools.llm, "available", False):
        prompt = build_deck_prompt(request.question, spec, anchors, request.fresh, request.sticky, decklists,
                                   candidates, [h.payload for h in hits[:15]], request.history)  # fmt: skip
        generated, shown = _generate(request, tools, prompt, spec, check, emit)
        if generated:
            (text, deck, verdict, attempts), source = generated, "llm"
    if source == "offline":
        text, deck = _offline_text(request, spec, candidates, decklists)
        verdict = check(deck, request.words_in)
        emit("token", {"text": text})
        text = shown + text  # the answer kept is the one the player saw
    if not pool:  # an issue, not a warning: no deck of this format can be built from the catalog
        verdict.issues.append(wording.text("no_pool", request.words_in, what=f"{spec.format}, {spec.colors or spec.domains or spec.hero}"))
        verdict.valid = False
    deck_cards = [cards_by_name[name] for name in deck.copies() if name in cards_by_name]
    text = auto_wrap_card_mentions(text, build_wrap_aliases([*anchors, *deck_cards]))
    return DeckResult(
        text=text, spec=spec, spec_source=spec_source, verdict=verdict, deck=deck, attempts=attempts, source=source,
        exports=exports_for(spec.game, deck, cards_by_name), inspiration=[d.get("deck_name", "") for d in decklists],
    )  # fmt: skip
