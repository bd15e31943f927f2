"""LLM listwise rerank: when an LLM is configured and no cross-encoder is (RERANK_URL), the
model reads the first passages of the fused list and orders them by how well they answer
the question (docs/asking.md, « Step 2 »).

Most wrong first passages are a neighbouring page or rule ranked 2–3 that says nearly the
same thing: telling them apart needs reading the question and the passage together, which
a cross-encoder does and fusion cannot. The model sees LLM_RERANK_TOP_N passages (the fused
top, each cut to PASSAGE_CHARS) and answers with their numbers, best first. Its order is
taken as it is for the passages it names; the ones it leaves out follow in fused order.
Any failure (timeout, quota, an answer with no usable number) keeps the fused order: the
rerank makes retrieval better, never possible (docs/architecture.md, decision 3).
"""

from __future__ import annotations

import logging
import re
from concurrent.futures import Executor
from typing import Sequence

from rag.hyde import call_with_timeout
from rag.llm.base import AnswerStopped
from rag.rerank import RerankError

log = logging.getLogger(__name__)

LLM_RERANK_TOP_N = 10
PASSAGE_CHARS = 700
TIMEOUT_S = 20.0

SYSTEM_PROMPT = (
    "You rank passages of board game rulebooks for a rules question. Read the question, then "
    "every numbered passage. Order the passages from the one that best answers the question to "
    "the least useful: the passage that states the rule asked about comes before a passage that "
    "only mentions its words, an expansion or FAQ passage that changes the rule comes right "
    "before the base rule it changes, and an example comes after the rule it illustrates. "
    "The question and the passages may be in French or English. Answer with the passage numbers "
    "only, best first, separated by commas (e.g. 3, 1, 2), and nothing else."
)

_NUMBER_RE = re.compile(r"\d+")


def rerank_prompt(question: str, texts: Sequence[str]) -> str:
    passages = "\n\n".join(f"[{n}] {' '.join(text.split())[:PASSAGE_CHARS]}" for n, text in enumerate(texts, 1))
    return f"Question: {question}\n\nPassages:\n\n{passages}\n\nRanking (passage numbers, best first):"


def parse_ranking(answer: str, count: int) -> list[int]:
    """0-based indexes in the model's order: numbers 1..count, each once, anything else ignored."""
    order: list[int] = []
    for match in _NUMBER_RE.finditer(answer or ""):
        index = int(match.group(0)) - 1
        if 0 <= index < count and index not in order:
            order.append(index)
    return order


class LLMListwiseReranker:
    """A `rag.rerank.Reranker` backed by the configured LLM, for the fused top only.

    `listwise`: retrieval takes its scores as the order (no blending with fusion, which would
    leave the top three as they were: the places the model is asked to fix)."""

    listwise = True

    def __init__(self, llm, *, executor: Executor, top_n: int = LLM_RERANK_TOP_N, timeout: float = TIMEOUT_S,
                 model: str = "haiku"):
        self.llm, self.executor, self.top_n, self.timeout, self.model = llm, executor, top_n, timeout, model
        self.name = f"llm-listwise@{getattr(llm, 'name', 'llm')}"

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text: the model's first gets len(texts), its second one less…; the
        texts it did not name keep their fused order below them. Raises RerankError when the
        model fails or names no passage (the caller keeps the fused order)."""
        if len(texts) < 2:
            raise RerankError("nothing to reorder")
        prompt = rerank_prompt(query, texts)
        try:
            answer = call_with_timeout(
                lambda: self.llm.complete(SYSTEM_PROMPT, prompt, model=self.model, timeout=self.timeout),
                self.timeout, self.executor,
            )
        except AnswerStopped:  # the player's stop is no failure: it ends the answer
            raise
        except Exception as exc:  # any backend failure (LLMError or not): the fused order stands
            raise RerankError(f"LLM rerank failed: {exc}") from exc
        order = parse_ranking(answer, len(texts))
        if not order:
            raise RerankError(f"LLM rerank gave no passage number: {str(answer)[:80]!r}")
        order += [i for i in range(len(texts)) if i not in order]
        scores = [0.0] * len(texts)
        for position, index in enumerate(order):
            scores[index] = float(len(texts) - position)
        return scores
