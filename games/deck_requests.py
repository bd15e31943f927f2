"""The Django edge of the deckbuilding mode: gathers what `rag.deckbuilding.build_deck` needs
(store synced from the card rows, embedder, LLM, catalog look-ups) and returns the answer
with its validation verdict and exports for the `done` event."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from django.conf import settings
from django.utils import translation

from rag.cards import fold_name, update_sticky
from rag.deckbuilding import DeckRequest, DeckSpec, DeckTools, build_deck, default_spec, validate_deck, wording
from rag.deckbuilding.commander import commander_from_sideboard, commander_in_main, commander_verdict
from rag.deckbuilding.export import exports_for
from rag.deckbuilding.parse_validate import ParsedDeck, Verdict, copy_limits, format_legality
from rag.deckbuilding.spec import hero_name
from rag.deckbuilding.wording import reader
from runtime import components

from .card_indexing import card_collection, card_payload, meta_collection
from .card_lookup import cards_known_as, catalog_card_key, catalog_names
from .decklists import parse_decklist_text, shown_line
from .indexing import sync_if_changed
from .models import Card, Game


# A pasted list's unread lines named one by one in its verdict, up to this many (then a count).
MAX_UNREAD_NAMED = 50


@dataclass(frozen=True)
class DeckAnswer:
    text: str  # what is persisted
    done_extra: dict  # the extra fields of the `done` event: verdict, exports, sticky cards
    sections: dict = field(default_factory=dict)  # the list: section -> [(quantity, name)]


@dataclass(frozen=True)
class CheckedList:
    sections: dict  # section -> [(quantity, name)]
    spec: DeckSpec
    verdict: Verdict
    exports: dict[str, str]


def has_catalog(game: Game) -> bool:
    """Whether the game's cards are imported: a game flagged as a card game starts without any."""
    return bool(game.card_game) and Card.objects.filter(game=game).exists()


def hero_names(game: Game) -> list[str]:
    """Flesh and Blood heroes as card legality names them (« Katsu », not « Katsu, the Wanderer »)."""
    if game.card_game != Game.CardGame.FAB:
        return []
    heroes = Card.objects.filter(game=game, type_line__icontains="hero").values_list("name", flat=True)
    return sorted({hero_name(name) for name in heroes})


def set_names(game: Game) -> dict[str, str]:
    return dict(Card.objects.filter(game=game).exclude(set_code="").values_list("set_code", "set_name").distinct())


def ask_deckbuilding(*, game: Game, question: str, mentioned_cards=(), sticky_cards=(), history=(), emit=None,
                     llm=None, words_in: str | None = None):  # fmt: skip
    """`llm`: the backend to stream with (the ask flow passes one the player can stop), the
    configured one by default. `words_in`: the reader's language of the answer's own words,
    the active language by default (the ask flow's answering thread runs under the page's)."""
    emit = emit or (lambda event, data: None)
    if not has_catalog(game):  # nothing to build from: say so rather than a list of basic lands
        text = wording.text("no_catalog", words_in or translation.get_language())
        emit("token", {"text": text})
        return DeckAnswer(text, {"bestScore": None})
    store = components.vector_store()
    sync_if_changed(store, [card_collection(game), meta_collection(game)])
    known = catalog_names(game)
    request = DeckRequest(
        game=game.card_game, question=question, fresh=list(mentioned_cards), sticky=list(sticky_cards),
        history=list(history), set_names=set_names(game), heroes=hero_names(game),
        words_in=reader(words_in or translation.get_language()),
    )  # fmt: skip
    tools = DeckTools(
        store=store, embedder=components.embedder(), llm=components.llm_backend() if llm is None else llm,
        card_collection=card_collection(game), meta_collection=meta_collection(game),
        is_known=lambda name: fold_name(name) in known,
        cards_named=lambda names: {name: card_payload(card) for name, card in cards_known_as(game, names).items()},
        model=settings.DECK_ANSWER_MODEL, timeout=getattr(settings, "ASK_ANSWER_TIMEOUT_S", None),
        spec_timeout=settings.DECK_SPEC_TIMEOUT_S,
    )  # fmt: skip
    result = build_deck(request, tools, emit)
    sticky = update_sticky(
        [c["card_name"] for c in sticky_cards],
        [c["card_name"] for c in mentioned_cards] + [name for name in result.deck.copies()],
        deck_discussed=True,
    )
    # bestScore rates rulebook passages; a decklist is judged by its verdict instead.
    done_extra = {**result.done_payload(), "stickyCardMentions": sticky, "bestScore": None}
    return DeckAnswer(result.text, done_extra, result.deck.sections)


def deck_question(*, format: str = "", anchors=(), constraints: str = "") -> str:
    """A deck request written as a player would ask it in the chat (the REST API's
    `POST /api/decks`): the same question goes through the same pipeline."""
    parts = ["Construis-moi une decklist complète"]
    if format:
        parts.append(format)
    if anchors:
        parts.append("autour de " + ", ".join(f"@{name}" for name in anchors))
    text = " ".join(parts) + "."
    return f"{text} {constraints.strip()}" if constraints.strip() else text


def check_decklist(game: Game, text: str, format: str = "") -> CheckedList:
    """A pasted list (« 4 Lightning Bolt », a Sideboard section) checked against the game's
    defaults for `format` by the rules: section sizes, copy limit, legality, a Commander
    deck's commander and colour identity; cards the catalog does not know and lines the
    parser could not read (warnings); with its exports."""
    lang = reader(translation.get_language())
    parsed = parse_decklist_text(text)
    deck = ParsedDeck()
    for section, entries in parsed.sections.items():
        for quantity, name in entries:
            deck.add(section, quantity, name)
    # A list with a Commander section and no format given is a Commander deck, not a Standard one.
    led = game.card_game == Game.CardGame.MTG and deck.sections.get("commander")
    spec = default_spec(game.card_game, format=format or ("commander" if led else ""))
    names = {name for entries in deck.sections.values() for _, name in entries}  # the companion's too
    known, rows = catalog_names(game), cards_known_as(game, names)
    cards = {name: card_payload(card) for name, card in rows.items()}
    deck = commander_in_main(commander_from_sideboard(deck, spec, cards), spec)  # MTGO's commander is its sideboard's card
    verdict = validate_deck(deck, spec, (), lambda name: fold_name(name) in known, catalog_card_key(game), lang,
                            legal=format_legality(spec, lambda name: rows[name].legal_formats if name in rows else None),
                            limit=copy_limits(spec, cards.get), by_the_rules=True)  # fmt: skip
    issues, warnings = commander_verdict(deck, spec, cards, lang)
    verdict = replace(verdict, valid=verdict.valid and not issues, issues=verdict.issues + issues,
                      warnings=unread_warnings(parsed.unread, lang) + verdict.warnings + warnings)  # fmt: skip
    return CheckedList(deck.sections, spec, verdict, exports_for(spec.game, deck, cards))




def unread_warnings(lines: list[str], lang: str = "fr") -> list[str]:
    """One warning per line left out of a pasted list, quoting it (the first MAX_UNREAD_NAMED,
    then how many more): the verdict is on the list that was read, the player sees what was not."""
    named = [wording.text("unread_line", lang, line=shown_line(line)) for line in lines[:MAX_UNREAD_NAMED]]
    more = len(lines) - MAX_UNREAD_NAMED
    return named + ([wording.text("unread_more", lang, count=more)] if more > 0 else [])
