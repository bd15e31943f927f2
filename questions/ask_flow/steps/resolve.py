"""Resolve: what the question is about — its booklets, its @-mentioned cards (this turn's
and the earlier turns' sticky ones), the LLM that will answer."""

from __future__ import annotations

from games.card_lookup import resolve_mentions
from games.models import Extension
from runtime import components
from rag.cards import capped_sticky

from ...booklets import booklets_of
from ...models import Question
from ..context import Resolved


def resolve(question: Question) -> Resolved:
    game = question.game
    extensions = Extension.objects.filter(questions=question).order_by("name")
    shown_sticky = capped_sticky(question.sticky_card_mentions, question.text, question.history)
    return Resolved(
        booklets=booklets_of(game, extensions),
        fresh_cards=resolve_mentions(game, question.card_mentions),
        sticky_cards=resolve_mentions(game, shown_sticky),
        sticky_after=question.sticky_cards_after(),
        llm=components.llm_backend(),
    )
