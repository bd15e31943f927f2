"""Answer a deck request: a card game gets a decklist built from its catalog
(games.deck_requests), with its validation verdict and exports for the `done` event; a game
without a card catalog gets the « Phase 1 » answer (games.deck_phase1): the deckbuilding
prompt over a synergy retrieval of the checked booklets, never a plain rules answer.

Both stream through a `StoppableLLM`: once the player presses « Arrêter », the text streamed
until then is the answer (marked stopped, without a verdict: the list is unfinished)."""

from __future__ import annotations

from games.deck_phase1 import ask_phase1
from games.deck_requests import ask_deckbuilding

from ..context import Answer, AskContext, Resolved
from ..stop import AnswerStopped, StoppableLLM


def answer_with_deck(ctx: AskContext, resolved: Resolved) -> Answer:
    streamed: list[str] = []

    def emit(name: str, data: dict) -> None:
        if name == "token":
            streamed.append(data.get("text", ""))
        ctx.emit(name, data)

    request = dict(
        game=ctx.game, question=ctx.text, mentioned_cards=resolved.fresh_cards, sticky_cards=resolved.sticky_cards,
        history=ctx.question.history, emit=emit, llm=StoppableLLM(resolved.llm, ctx.answering),
    )  # fmt: skip
    try:
        if not ctx.game.card_game:
            return Answer(ask_phase1(**request, booklets=resolved.booklets))
        deck = ask_deckbuilding(**request)
        return Answer(deck.text, done_extra=deck.done_extra)
    except AnswerStopped:
        return Answer("".join(streamed), stopped=True)
