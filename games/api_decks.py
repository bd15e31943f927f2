"""Deck endpoints (mounted under /api/decks): build a decklist from a request, or check a
pasted one, with the chat's own service (games.deck_requests): the list, its verdict and
its exports (plain text; Magic: MTG Arena and the MTGO `.dek` XML).

Building calls the LLM when one is configured (up to three generations; minutes with a slow
backend) and answers when the list is done; without an LLM the list is built from the
catalog in seconds. It runs in the ask answer pool, queued with the chat's answers, and counts
against the ask rate limits once the request is known to be buildable (a 422 costs nothing).
Who may call them is set where the router is mounted (oracle_site/api.py: the ask endpoints'
authentication)."""

from typing import Annotated
from uuid import UUID

from django.shortcuts import get_object_or_404
from django.utils import translation
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from ninja.errors import Throttled, ValidationError
from ninja.security import SessionAuth

from runtime import executors
from runtime.api_errors import READ_ERRORS, ErrorOut
from runtime.ratelimit import count_ask

from .card_indexing import card_payload
from .card_lookup import find_card
from .deck_requests import ask_deckbuilding, check_decklist, deck_question, has_catalog
from .decklists import DecklistError
from .models import Game

router = Router(tags=["decks"], auth=SessionAuth())  # oracle_site/api.py mounts it with the ask auth

CardName = Annotated[str, Field(min_length=1, max_length=200)]


class DeckRequestIn(Schema):
    gameId: UUID
    format: str = Field("", max_length=40, description="standard, modern, commander, classic constructed…")
    anchors: list[CardName] = Field(default_factory=list, max_length=20, description="cards the deck must hold")
    constraints: str = Field("", max_length=1000, description="anything else, in words: colors, archetype, budget…")


class DeckCheckIn(Schema):
    gameId: UUID
    format: str = Field("", max_length=40)
    decklist: str = Field(..., min_length=1, max_length=20000, description="« 4 Lightning Bolt » lines, then Sideboard")


class Validation(Schema):
    valid: bool
    issues: list[str]
    warnings: list[str]
    totals: dict[str, int]


class DeckOut(Schema):
    sections: dict[str, list[tuple[int, str]]]  # main, sideboard, commander, runes, battlefields…: [quantity, name]
    validation: Validation
    spec: dict  # what the list had to be: format, section sizes, copy limit, colors, commander…
    exports: dict[str, str]  # text; Magic also arena and mtgo_dek


class BuiltDeckOut(DeckOut):
    answer: str  # the answer as the chat shows it (markdown, cards as [[card:Name]])
    builder: str  # llm | offline
    attempts: int


def card_game(game_id: UUID) -> Game:
    game = get_object_or_404(Game, pk=game_id)
    if not game.card_game:
        raise ValidationError([_field_error("gameId", _("Ce jeu n'a pas de catalogue de cartes."))])
    if not has_catalog(game):
        raise ValidationError([_field_error("gameId", _("Les cartes de ce jeu ne sont pas encore importées."))])
    return game


def _field_error(field: str, message: str) -> dict:
    return {"type": "value_error", "loc": ["body", "payload", field], "msg": message}


@router.post("", response={200: BuiltDeckOut, **READ_ERRORS, 429: ErrorOut}, url_name="oracle-deck-build")
def build_deck(request, payload: DeckRequestIn):
    """A complete list around the anchors, validated (retried with its issues when the LLM's
    first list is not legal) and exported."""
    game = card_game(payload.gameId)
    cards = {name: find_card(game, name) for name in payload.anchors}
    unknown = [name for name, card in cards.items() if card is None]
    if unknown:
        raise ValidationError([_field_error("anchors", _("Cartes inconnues : %s.") % ", ".join(unknown))])
    count_ask(request, Throttled)  # once the request is buildable: a 422 costs nothing
    anchors = list({card.pk: card_payload(card) for card in cards.values()}.values())
    names = [anchor["card_name"] for anchor in anchors]
    question = deck_question(format=payload.format, anchors=names, constraints=payload.constraints)
    # In the answer pool: a deck costs what an answer does (embedding, LLM), so it waits for one
    # of ASK_MAX_CONCURRENT_ANSWERS threads like the chat's questions.
    building = executors.ask_answer().submit(ask_deckbuilding, game=game, question=question, mentioned_cards=anchors,
                                             words_in=translation.get_language())  # the pool thread has no request language
    deck = building.result()
    built = deck.done_extra["deck"]
    return {
        "sections": deck.sections, "validation": built["validation"], "spec": built["spec"],
        "exports": built["exports"], "answer": deck.text, "builder": built["builder"], "attempts": built["attempts"],
    }  # fmt: skip


@router.post("/validate", response={200: DeckOut, **READ_ERRORS}, url_name="oracle-deck-validate")
def validate_decklist(request, payload: DeckCheckIn):
    """A pasted list checked without building anything: section sizes for the format, copy
    limit, cards unknown to the catalog and lines that could not be read (warnings); with its
    exports."""
    game = card_game(payload.gameId)
    try:
        checked = check_decklist(game, payload.decklist, payload.format)
    except DecklistError as exc:
        raise ValidationError([_field_error("decklist", str(exc))]) from exc
    return {
        "sections": checked.sections, "validation": checked.verdict.as_dict(),
        "spec": checked.spec.model_dump(), "exports": checked.exports,
    }  # fmt: skip
