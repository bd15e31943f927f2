"""Follow-up questions: « Et avec l'extension ? », « et à 6 joueurs ? », "what about with
6 players?" say little on their own; they are searched with the conversation's previous
question (docs/asking.md, « Follow-ups »).

Offline, the previous question and the follow-up together make one more query (dense and
BM25) at a lower weight than the follow-up itself (rag.retrieve, `context`), so what the
follow-up adds (the expansion, the player count) stays what decides between passages that
both match the earlier subject. With an LLM, that query is instead the follow-up rewritten
as a question that stands alone (`standalone_question`: « Et avec l'extension Storm Front ? »
after the photography question → « Peut-on photographier une Merveille depuis la couche
haute avec l'extension Storm Front ? »); the offline text when the LLM fails or is slow.
"""

from __future__ import annotations

import logging
import re
from concurrent.futures import Executor

from rag.hyde import call_with_timeout
from rag.llm.base import AnswerStopped
from rag.sparse import words

log = logging.getLogger(__name__)

REWRITE_TIMEOUT_S = 10.0
REWRITE_TURNS = 3  # the last turns the model reads
ANSWER_CHARS = 300  # of each earlier answer: enough to know what « ça » is
MAX_REWRITE_CHARS = 500  # a longer text is not a question: the offline text is used

REWRITE_SYSTEM_PROMPT = (
    "A player asks rules questions about a board game in a chat. Rewrite the player's last "
    "question so that it stands alone, with what it refers to taken from the conversation "
    "(the subject, the expansion, the card, the number of players). Keep its language (French "
    "or English), its meaning and every detail it adds; do not answer it. Reply with the "
    "rewritten question only, on one line."
)

# A question opening like a continuation: « et… », « et si… », "and…", "what about…".
_CONTINUATION = re.compile(
    r"^\s*(et|and|what about|how about|what if|même|pareil|idem|dans ce cas|in that case|"
    r"sinon|otherwise|also|aussi|ou|or|mais|but)\b",
    re.IGNORECASE,
)
# Words that point back: « ça », « cela », « celle-ci », "this one"…
# ("it", "that" are left out: too common in questions that stand alone.)
_ANAPHORA = re.compile(r"\b(ça|cela|celle-ci|celui-ci|ceux-ci|dans ce cas|this one|in that case)\b", re.IGNORECASE)
SHORT_QUESTION_WORDS = 3  # "How do the Liberals win the game?" (3 words) is short but stands alone


def previous_question(history: list[dict] | None) -> str:
    """The last question of the conversation, or ""."""
    for turn in reversed(history or []):
        question = turn.get("question") or (turn.get("content") if turn.get("role") == "user" else "")
        if question and question.strip():
            return question.strip()
    return ""


def is_follow_up(question: str) -> bool:
    """Short, or opening as a continuation, or pointing back at what was said."""
    return (
        len(words(question)) < SHORT_QUESTION_WORDS
        or _CONTINUATION.match(question) is not None
        or _ANAPHORA.search(question) is not None
    )


def context_query(question: str, history: list[dict] | None) -> str | None:
    """The text to search beside a follow-up: the previous question with it; None when the
    question stands alone or there is no earlier question."""
    if not follows_up(question, history):
        return None
    return f"{previous_question(history)} {question}"


def rewrite_prompt(question: str, history: list[dict]) -> str:
    turns = []
    for turn in (history or [])[-REWRITE_TURNS:]:
        asked = (turn.get("question") or "").strip()
        answered = " ".join((turn.get("answer") or "").split())[:ANSWER_CHARS]
        if asked:
            turns.append(f"Player: {asked}" + (f"\nOracle: {answered}" if answered else ""))
    conversation = "\n\n".join(turns)
    return f"Conversation:\n\n{conversation}\n\nLast question: {question}\n\nStandalone question:"


def standalone_question(question: str, history: list[dict] | None, llm, *, timeout: float = REWRITE_TIMEOUT_S,
                        executor: Executor) -> str | None:
    """The follow-up rewritten by the LLM to stand alone, or None: not a follow-up, no earlier
    question, no LLM, or the call failed, timed out or gave no usable question (the caller
    then searches the offline `context_query`)."""
    if not getattr(llm, "available", False) or not follows_up(question, history):
        return None
    prompt = rewrite_prompt(question, history or [])
    try:
        text = call_with_timeout(
            lambda: llm.complete(REWRITE_SYSTEM_PROMPT, prompt, model="haiku", timeout=timeout), timeout, executor
        )
    except AnswerStopped:  # the player's stop is no failure: it ends the answer
        raise
    except Exception as exc:  # any backend failure (LLMError or not): the offline text stands
        log.info("follow-up rewrite skipped: %s", exc)
        return None
    lines = [line.strip().strip('"«» ') for line in (text or "").strip().splitlines() if line.strip()]
    rewritten = lines[0] if lines else ""
    if (
        len(rewritten) > MAX_REWRITE_CHARS
        or rewritten.casefold() == question.strip().casefold()
        or len(words(rewritten)) < max(SHORT_QUESTION_WORDS, len(words(question)))  # "rules" is no question
    ):
        return None
    return rewritten


def follows_up(question: str, history: list[dict] | None) -> bool:
    """Is `question` a follow-up of an earlier question of the conversation?"""
    return bool(previous_question(history)) and is_follow_up(question)
