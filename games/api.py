"""JSON endpoints of the games app (mounted under /api/)."""

from uuid import UUID

from django.conf import settings
from django.shortcuts import get_object_or_404
from ninja import Router, Schema
from ninja.security import SessionAuth

from .card_lookup import search_cards
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
    "/games/{game_id}/cards",
    response=list[CardOut],
    auth=[SessionAuth(), anonymous_when_allowed],
    url_name="oracle-game-cards",
)
def list_cards(request, game_id: UUID, q: str = "", limit: int = 10):
    """Autocomplete for @-mentions: prefix, word prefix then close spellings, French and English."""
    game = get_object_or_404(Game, pk=game_id)
    return search_cards(game, q[:60], limit=max(1, min(limit, 25)))
