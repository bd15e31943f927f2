"""Resolve: what the question is about — its booklets, its @-mentioned cards (this turn's
and the earlier turns' sticky ones), the LLM that will answer."""

from __future__ import annotations

from games.card_lookup import resolve_mentions
from games.models import Extension
from runtime import components
from rag.cards import capped_sticky

from ...booklets import booklets_of
from ..context import AskContext


def resolve(ctx: AskContext) -> None:
    question = ctx.question
    extensions = Extension.objects.filter(questions=question).order_by("name")
    ctx.booklets = booklets_of(ctx.game, extensions)
    ctx.fresh_cards = resolve_mentions(ctx.game, question.card_mentions)
    shown_sticky = capped_sticky(question.sticky_card_mentions, question.text, question.history)
    ctx.sticky_cards = resolve_mentions(ctx.game, shown_sticky)
    ctx.sticky_after = question.sticky_cards_after()
    ctx.llm = components.llm_backend()

