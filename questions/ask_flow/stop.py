"""Stopping an answer: the player's « Arrêter » (`request_stop`) stops the question's
`Answering` (ask_flow/answering.py) at its next check — before each LLM call, and every
CHECK_EVERY_S while one streams (even a silent one); another web process sees it through the
shared flag within CHECK_EVERY_S."""

from __future__ import annotations

from rag.llm.base import AnswerStopped
from rag.llm.cancel import stream_in_background

from .answering import CHECK_EVERY_S, Answering, forget_stop, live, request_stop  # noqa: F401  (their users' names)


def stop_check(question_id) -> Answering:
    """The question's `Answering` of this process, or a detached one that reads the shared flag."""
    return live(question_id) or Answering(question_id)


StopSignal = stop_check  # `StopSignal(question_id).stopped()`, as the tests ask it


class StoppableLLM:
    """An LLM backend whose calls end with `AnswerStopped` once the player pressed « Arrêter »:
    checked before each call starts (a stop pressed while the deck is prepared launches no
    paid call), after each `complete`, and every CHECK_EVERY_S while a call streams. The deck builders
    (games.deck_requests, games.deck_phase1) call it through code that knows nothing of
    stopping: their fall-backs catch `LLMError` only, so `AnswerStopped` reaches the answer
    step, which keeps the text streamed until then."""

    def __init__(self, llm, answering: Answering | str):
        self._llm = llm
        self._answering = answering if isinstance(answering, Answering) else stop_check(answering)

    def __getattr__(self, name):  # name, available, health…: the backend's own
        return getattr(self._llm, name)

    def _check(self) -> None:
        if self._answering.stopped():
            raise AnswerStopped

    def stream(self, *args, **kwargs):
        """Read on a thread of its own (rag.llm.cancel): a stop is seen within CHECK_EVERY_S
        even while the model is silent, and the call is cancelled (the CLI killed, the HTTP
        response hung up), as for a rules answer."""
        self._check()  # a generator: runs at the first token asked, before the backend is called
        yield from stream_in_background(lambda: self._llm.stream(*args, **kwargs),
                                        stopped=self._answering.stopped, poll_s=CHECK_EVERY_S)

    def complete(self, *args, **kwargs):
        self._check()
        text = self._llm.complete(*args, **kwargs)
        self._check()  # stopped during the call: its result starts nothing more
        return text
