"""Answer with a decklist: a card game asked for a deck gets one built from its catalog
(games.deck_requests), with its validation verdict and exports for the `done` event."""

from __future__ import annotations

from games.deck_requests import ask_deckbuilding

from ..context import AskContext


def answer_with_deck(ctx: AskContext) -> None:
    deck = ask_deckbuilding(
        game=ctx.game, question=ctx.text, mentioned_cards=ctx.fresh_cards, sticky_cards=ctx.sticky_cards,
        history=ctx.question.history, emit=ctx.emit,
    )  # fmt: skip
    ctx.answer, ctx.done_extra = deck.text, deck.done_extra
