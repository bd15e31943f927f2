"""JSON endpoints of the games app (mounted under /api/games): the games, each with its
booklets (read by whoever may ask; created, renamed and deleted by staff), and card
autocomplete and lookup."""

from typing import Literal
from uuid import UUID

from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from ninja import Query, Router, Schema
from ninja.errors import HttpError
from ninja.pagination import paginate
from ninja.responses import Status

from runtime.api_access import STAFF, is_staff
from runtime.api_errors import READ_ERRORS, STAFF_ERRORS, ErrorOut, MappedPage, Pagination

from . import services
from .api_booklets import booklets_out
from .card_lookup import find_card, search_cards
from .models import Game
from .schemas import BookletOut, GameDetailOut, GameIn, GameOut, GamePatch

router = Router(tags=["games"])

GAME_ORDERINGS = Literal["name", "-name", "created_at", "-created_at", "updated_at", "-updated_at"]


def game_out(game: Game, booklet_count: int | None = None) -> dict:
    if booklet_count is None:
        booklet_count = 1 + (game.extension_count if hasattr(game, "extension_count") else game.extensions.count())
    return {
        "id": game.pk,
        "name": game.name,
        "slug": game.slug,
        "language": game.language,
        "description": game.description,
        "bgg_id": game.bgg_id,
        "card_game": game.card_game,
        "booklet_count": booklet_count,
        "url": reverse("api:oracle-game-detail", args=[game.pk]),
        "created_at": game.created_at,
        "updated_at": game.updated_at,
    }


def game_detail_out(game: Game, *, staff: bool) -> dict:
    booklets = game.booklets()
    return {**game_out(game, booklet_count=len(booklets)), "booklets": booklets_out(game, booklets, staff=staff)}


@router.get("", response={200: list[GameOut], 401: ErrorOut, 422: ErrorOut}, url_name="oracle-game-list")
@paginate(Pagination)
def list_games(request, q: str = Query("", max_length=200), ordering: GAME_ORDERINGS = "name"):
    """The games, searched by name or slug (`q`, case-insensitive), by name by default."""
    games = Game.objects.annotate(extension_count=Count("extensions"))
    q = q.replace("\x00", "").strip()  # PostgreSQL refuses NUL in a string
    if q:
        games = games.filter(Q(name__icontains=q) | Q(slug__icontains=q))
    return MappedPage(games.order_by(ordering, "pk"), game_out)


@router.post("", response={201: GameDetailOut, **STAFF_ERRORS}, auth=STAFF, url_name="oracle-game-create")
def create_game(request, payload: GameIn):
    """Staff: a new game without rules yet (upload its booklets with `POST /api/games/ingest`)."""
    game = services.create_game(
        name=payload.name.strip(), language=payload.language, bgg_id=payload.bgg_id, description=payload.description
    )
    return Status(201, game_detail_out(game, staff=True))


@router.get("/{game_id}", response={200: GameDetailOut, **READ_ERRORS}, url_name="oracle-game-detail")
def get_game(request, game_id: UUID):
    """A game with its booklets (base rules first)."""
    return game_detail_out(get_object_or_404(Game, pk=game_id), staff=is_staff(request))


@router.patch("/{game_id}", response={200: GameDetailOut, **STAFF_ERRORS}, auth=STAFF, url_name="oracle-game-update")
def rename_game(request, game_id: UUID, payload: GamePatch):
    """Staff: rename the game (its chunks carry the new name to answers)."""
    game = services.rename_game(get_object_or_404(Game, pk=game_id), payload.name.strip())
    return game_detail_out(game, staff=True)


@router.delete("/{game_id}", response={204: None, **STAFF_ERRORS, 409: ErrorOut}, auth=STAFF, url_name="oracle-game-delete")
def delete_game(request, game_id: UUID):
    """Staff: delete the game with its booklets, chunks, cards, vectors, PDFs, page images and
    ingestion jobs. 409 while one of its ingestions runs (cancel it first)."""
    try:
        services.delete_game(get_object_or_404(Game, pk=game_id))
    except services.BookletBusy as exc:
        raise HttpError(409, str(exc)) from None
    return Status(204, None)


@router.get("/{game_id}/booklets", response={200: list[BookletOut], **READ_ERRORS}, url_name="oracle-game-booklets")
@paginate(Pagination)
def list_booklets(request, game_id: UUID, kind: str = Query("", max_length=20), language: str = Query("", max_length=8)):
    """The game's booklets, base rules first, with their kind, language, pages, chunk count,
    index state and last ingestion job; `kind` and `language` filter them."""
    game = get_object_or_404(Game, pk=game_id)
    booklets = [b for b in game.booklets() if (not kind or b.kind == kind) and (not language or b.language == language)]
    return booklets_out(game, booklets, staff=is_staff(request))


class CardOut(Schema):
    id: UUID
    name: str
    name_fr: str
    type_line: str
    cost: str
    set_code: str


@router.get(
    "/{game_id}/cards",
    response={200: list[CardOut], **READ_ERRORS},
    url_name="oracle-game-cards",
)
def list_cards(request, game_id: UUID, q: str = "", limit: int = Query(10, ge=1, le=25)):
    """Autocomplete for @-mentions: prefix, word prefix then close spellings, French and English;
    `limit` cards at most (1 to 25: out of range is a 422, as on every list)."""
    game = get_object_or_404(Game, pk=game_id)
    return search_cards(game, q[:60], limit=limit)


class CardDetailOut(CardOut):
    text: str
    text_fr: str
    set_name: str


@router.get(
    "/{game_id}/cards/lookup",
    response={200: CardDetailOut, **READ_ERRORS},
    url_name="oracle-game-card-lookup",
)
def lookup_card(request, game_id: UUID, name: str):
    """One card by the name an answer writes (`[[card:Name]]`): English or French name, front
    face, else a close spelling. 404 when the game's catalog has no such card. The chat's card
    chips show it on hover and click."""
    game = get_object_or_404(Game, pk=game_id)
    card = find_card(game, name[:200])
    if card is None:
        raise Http404("no such card")
    return card
