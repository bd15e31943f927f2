"""What kind of question is it: rules | synergy | meta | deckbuilding.

With an LLM, a short classification call (a timeout means `rules`: answering a rules
question is the safe default). Without one, keyword rules in French and English.
When several kinds match, deckbuilding > meta > synergy > rules (docs/architecture.md).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from concurrent.futures import Executor

from rag.hyde import call_with_timeout
from rag.llm.base import LLMError, LLMTimeout
from rag.prompts import CLASSIFY_SYSTEM_PROMPT, classify_prompt

log = logging.getLogger(__name__)

INTENTS = ("rules", "synergy", "meta", "deckbuilding")
PRIORITY = ("deckbuilding", "meta", "synergy", "rules")
CLASSIFY_TIMEOUT_S = 8.0

# Matched against lower-cased, accent-folded text.
KEYWORDS = {
    "deckbuilding": [
        r"\bdeck ?lists?\b",
        r"\bliste de (?:deck|cartes)\b",
        r"\b(?:construi\w*|monte\w*|fai\w*|propose\w*|cree\w*|build\w*|make|give me|suggest)\b.{0,30}\bdecks?\b",
        r"\bdeck (?:complet|entier)\b",
        r"\b(?:full|complete) deck\b",
        r"\bsideboard\b",
        r"\b\d{2} ?\+ ?\d{1,2}\b",  # "40 + 12", "60+15"
        r"\b(?:40|60) cartes\b",
        r"\b(?:40|60)[- ]cards?\b",
    ],
    "meta": [
        r"\bmeta(?:game)?\b",
        r"\btier ?(?:list|1|2)\b",
        r"\bwin ?rate\b",
        r"\btaux de victoire\b",
        r"\btournois?\b",
        r"\btournaments?\b",
        r"\btop ?(?:8|16|32)\b",
        r"\b(?:le plus|les plus|most) (?:joue|jouee|joues|jouees|played|populaires?|popular)\b",
        r"\bdominant",
    ],
    "synergy": [
        r"\bsynerg",
        r"\bcombos?\b",
        r"\barchetypes?\b",
        r"\b(?:va|vont|marche\w*|fonctionne\w*) bien avec\b",
        r"\b(?:work|works|go|goes|pair|pairs) well with\b",
        r"\bs'associe",
        r"\bcartes? (?:qui )?(?:vont|iraient) avec\b",
        r"\bcombine\w* (?:bien|avec)\b",
    ],
}
_COMPILED = {intent: [re.compile(p) for p in patterns] for intent, patterns in KEYWORDS.items()}


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in text if not unicodedata.combining(ch)).lower().replace("’", "'")


def classify_offline(question: str) -> str:
    folded = _fold(question)
    for intent in PRIORITY[:-1]:
        if any(p.search(folded) for p in _COMPILED[intent]):
            return intent
    return "rules"


def parse_intent(text: str) -> str | None:
    """The highest-priority intent the LLM named, or None when it named none."""
    words = set(re.findall(r"[a-z]+", _fold(text or "")))
    for intent in PRIORITY:
        if intent in words:
            return intent
    return None


def classify(question: str, llm, timeout: float = CLASSIFY_TIMEOUT_S, *, executor: Executor) -> str:
    """The question's intent; the LLM call runs in `executor`, awaited at most `timeout` s."""
    if not getattr(llm, "available", False):
        return classify_offline(question)
    try:
        answer = call_with_timeout(
            lambda: llm.complete(CLASSIFY_SYSTEM_PROMPT, classify_prompt(question), model="haiku", timeout=timeout),
            timeout,
            executor,
        )
    except LLMTimeout:
        return "rules"
    except LLMError as exc:
        log.info("classification by LLM failed (%s): keyword rules", exc)
        return classify_offline(question)
    return parse_intent(answer) or classify_offline(question)
