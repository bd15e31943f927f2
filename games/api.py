"""JSON endpoints of the games app (mounted under /api/)."""

from uuid import UUID

from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404
from ninja import Router, Schema
from ninja.security import SessionAuth

from .card_lookup import find_card, search_cards
from .models import Game

router = Router(tags=["games"])


def anonymous_when_allowed(request):
    """Card names are as public as the chat: open when asking is open to everyone."""
    return settings.ASK_ALLOW_ANONYMOUS or None


class CardOut(Schema):
    id: UUID
    name: str
    name_fr: str
    type_line: str
    cost: str
    set_code: str


@router.get(
    "/{game_id}/cards",
    response=list[CardOut],
    auth=[SessionAuth(), anonymous_when_allowed],
    url_name="oracle-game-cards",
)
def list_cards(request, game_id: UUID, q: str = "", limit: int = 10):
    """Autocomplete for @-mentions: prefix, word prefix then close spellings, French and English."""
    game = get_object_or_404(Game, pk=game_id)
    return search_cards(game, q[:60], limit=max(1, min(limit, 25)))


class CardDetailOut(CardOut):
    text: str
    text_fr: str
    set_name: str


@router.get(
    "/{game_id}/cards/lookup",
    response=CardDetailOut,
    auth=[SessionAuth(), anonymous_when_allowed],
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
