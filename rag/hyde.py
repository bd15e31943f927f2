"""HyDE: the LLM writes the rules passage that would answer the question; its embedding is
searched too (weight 1 against the raw question's 2). Skipped without an LLM, and a slow
LLM only costs HYDE_TIMEOUT_S: the raw question is enough to answer."""

from __future__ import annotations

import logging
from concurrent.futures import Executor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Callable, TypeVar

from rag.llm.base import LLMError, LLMTimeout
from rag.prompts import HYDE_SYSTEM_PROMPT, hyde_prompt

log = logging.getLogger(__name__)

HYDE_TIMEOUT_S = 25.0
T = TypeVar("T")


def call_with_timeout(fn: Callable[[], T], timeout: float, executor: Executor) -> T:
    """Run `fn` in `executor` and give up waiting after `timeout` seconds.

    Backends take a timeout too; this is the guard for one that does not honour it.
    The abandoned call finishes in the background and its result is dropped.
    """
    future = executor.submit(fn)
    try:
        return future.result(timeout)
    except FutureTimeout:
        future.cancel()  # still queued: never started
        raise LLMTimeout(f"no answer within {timeout:.0f} s") from None


def hypothetical_passage(
    question: str, llm, game_name: str = "", timeout: float = HYDE_TIMEOUT_S, *, executor: Executor
) -> str | None:
    """The passage, or None when there is no LLM or it failed (the caller searches without).
    The LLM call runs in `executor`, awaited at most `timeout` seconds."""
    if not getattr(llm, "available", False):
        return None
    try:
        text = call_with_timeout(
            lambda: llm.complete(HYDE_SYSTEM_PROMPT, hyde_prompt(question, game_name), model="haiku", timeout=timeout),
            timeout,
            executor,
        )
    except LLMError as exc:
        log.info("HyDE skipped: %s", exc)
        return None
    text = (text or "").strip()
    return text or None
