"""Follow-up questions: « Et avec l'extension ? », « et à 6 joueurs ? », "what about with
6 players?" say little on their own; they are searched with the conversation's previous
question (docs/asking.md, « Follow-ups »).

Offline, the previous question and the follow-up together make one more query (dense and
BM25) at a lower weight than the follow-up itself (rag.retrieve, `context`), so what the
follow-up adds (the expansion, the player count) stays what decides between passages that
both match the earlier subject.
"""

from __future__ import annotations

import re

from rag.sparse import words

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
    previous = previous_question(history)
    if not previous or not is_follow_up(question):
        return None
    return f"{previous} {question}"
