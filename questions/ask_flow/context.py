"""What the steps of one answer share: the question, what each step found, the timings."""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Callable

from games.models import Game
from rag.retrieve import BookletRef, Retrieval, RetrievedChunk

from ..models import Question
from .answering import Answering

Emit = Callable[[str, dict], None]


class StepTimer:
    """Wall-clock time of each step, for the `diagnostics` event."""

    def __init__(self):
        self.timings: dict[str, float] = {}
        self._last = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round((now - self._last) * 1000, 1)
        self._last = now


@dataclass
class AskContext:
    question: Question
    emit: Emit
    answering: Answering  # its stop flag, streamed text and in-flight mark (ask_flow/answering.py)
    timer: StepTimer = field(default_factory=StepTimer)
    # resolve
    booklets: list[BookletRef] = field(default_factory=list)
    fresh_cards: list[dict] = field(default_factory=list)  # this turn's @-mentions, resolved
    sticky_cards: list[dict] = field(default_factory=list)  # earlier turns' cards, resolved
    sticky_after: list[str] = field(default_factory=list)  # the names the next turn sends back
    llm: object = None
    store: object = None
    # classify, HyDE and a follow-up's rewrite, running beside retrieval
    intent_future: Future | None = None
    hyde_future: Future | None = None
    rewrite_future: Future | None = None  # a follow-up rewritten to stand alone by the LLM
    hyde: str | None = None
    # a follow-up: the LLM's standalone question, else the previous question with it (rag.followup)
    context_text: str | None = None
    follow_up_rewritten: bool = False
    intent: str = Question.Intent.RULES
    # retrieve and route
    retrieval: Retrieval | None = None
    chunks: list[RetrievedChunk] = field(default_factory=list)
    # answer
    answer: str = ""
    stopped: bool = False  # the player stopped the answer: `answer` is what was streamed until then
    done_extra: dict = field(default_factory=dict)  # deckbuilding: verdict, exports, sticky cards
    diagnostics: dict = field(default_factory=dict)

    @property
    def game(self) -> Game:
        return self.question.game

    @property
    def text(self) -> str:
        return self.question.text

    @property
    def search_text(self) -> str:
        """What the passages are searched and quoted for: a follow-up with its previous question."""
        return self.context_text or self.question.text

    @property
    def wants_deck(self) -> bool:
        """A deck request: built from the catalog of a card game, « Phase 1 » elsewhere."""
        return self.intent == Question.Intent.DECKBUILDING
