"""What the steps of one answer share — the question, `emit`, its `Answering` and the step
timer — and the small frozen results the steps return (flow.py passes them on as arguments)."""

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


class _OfAQuestion:
    """The question's game and text, for what carries a `question`."""

    @property
    def game(self) -> Game:
        return self.question.game

    @property
    def text(self) -> str:
        return self.question.text


@dataclass
class AskContext(_OfAQuestion):
    question: Question
    emit: Emit
    answering: Answering  # its stop flag, streamed text and in-flight mark (ask_flow/answering.py)
    timer: StepTimer = field(default_factory=StepTimer)


@dataclass(frozen=True)
class Resolved:
    """What the question is about (steps/resolve.py)."""

    booklets: list[BookletRef]
    fresh_cards: list[dict]  # this turn's @-mentions, resolved
    sticky_cards: list[dict]  # earlier turns' cards, resolved
    sticky_after: list[str]  # the names the next turn sends back
    llm: object


@dataclass(frozen=True)
class Understanding:
    """Classify, HyDE and a follow-up's rewrite, running beside retrieval (steps/understand.py)."""

    intent: Future
    hyde: Future
    rewrite: Future | None = None  # a follow-up rewritten to stand alone by the LLM


@dataclass(frozen=True)
class Found:
    """The passages retrieval found (steps/retrieve.py)."""

    retrieval: Retrieval
    hyde: str | None
    # a follow-up: the LLM's standalone question, else the previous question with it (rag.followup)
    context_text: str | None
    follow_up_rewritten: bool


@dataclass(frozen=True)
class Answer:
    text: str
    stopped: bool = False  # the player stopped the answer: `text` is what was streamed until then
    done_extra: dict = field(default_factory=dict)  # deckbuilding: verdict, exports, sticky cards


@dataclass(frozen=True)
class Answered(_OfAQuestion):
    """One answer as the `context`, `diagnostics` and `done` events and the stored question
    read it (payloads.py), gathered from the steps' results by the flow."""

    question: Question
    timer: StepTimer
    resolved: Resolved
    found: Found
    intent: str
    chunks: list[RetrievedChunk]
    answer: str = ""
    stopped: bool = False
    done_extra: dict = field(default_factory=dict)
    diagnostics: dict = field(default_factory=dict)

    @property
    def fresh_cards(self) -> list[dict]:
        return self.resolved.fresh_cards

    @property
    def sticky_cards(self) -> list[dict]:
        return self.resolved.sticky_cards

    @property
    def sticky_after(self) -> list[str]:
        return self.resolved.sticky_after

    @property
    def llm(self):
        return self.resolved.llm

    @property
    def retrieval(self) -> Retrieval:
        return self.found.retrieval

    @property
    def hyde(self) -> str | None:
        return self.found.hyde

    @property
    def context_text(self) -> str | None:
        return self.found.context_text

    @property
    def follow_up_rewritten(self) -> bool:
        return self.found.follow_up_rewritten

    @property
    def search_text(self) -> str:
        return search_text(self.question, self.found)

    @property
    def wants_deck(self) -> bool:
        return wants_deck(self.intent)


def search_text(question: Question, found: Found) -> str:
    """What the passages are searched and quoted for: a follow-up with its previous question."""
    return found.context_text or question.text


def wants_deck(intent: str) -> bool:
    """A deck request: built from the catalog of a card game, « Phase 1 » elsewhere."""
    return intent == Question.Intent.DECKBUILDING
