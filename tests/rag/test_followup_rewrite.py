"""A follow-up rewritten by the LLM as a question that stands alone (rag.followup), and every
way it falls back to the offline text: no LLM, not a follow-up, an error, an unusable answer."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from rag.followup import REWRITE_SYSTEM_PROMPT, standalone_question
from rag.llm.base import LLMTimeout

HISTORY = [{"question": "Peut-on photographier une Merveille depuis la couche haute ?",
            "answer": "Non : une Merveille se photographie depuis son propre hexagone."}]


class RewritingLLM:
    name, available = "rewriting-double", True

    def __init__(self, answer="", error=None):
        self.answer, self.error, self.calls = answer, error, []

    def complete(self, system, prompt, *, model="sonnet", timeout=None):
        self.calls.append((system, prompt, model))
        if self.error:
            raise self.error
        return self.answer


@pytest.fixture(scope="module")
def pool():
    with ThreadPoolExecutor(1) as executor:
        yield executor


def test_a_follow_up_is_rewritten_from_the_conversation(pool):
    llm = RewritingLLM("« Peut-on photographier une Merveille depuis la couche haute avec Storm Front ? »\n")

    rewritten = standalone_question("Et avec l'extension Storm Front ?", HISTORY, llm, executor=pool)

    assert rewritten == "Peut-on photographier une Merveille depuis la couche haute avec Storm Front ?"
    system, prompt, model = llm.calls[0]
    assert system == REWRITE_SYSTEM_PROMPT and model == "haiku"
    assert HISTORY[0]["question"] in prompt and "son propre hexagone" in prompt
    assert prompt.rstrip().endswith("Standalone question:") and "Et avec l'extension Storm Front ?" in prompt


@pytest.mark.parametrize("question,history,llm", [
    ("Combien de cartes pioche-t-on au début du tour ?", HISTORY, RewritingLLM("x")),  # stands alone
    ("Et avec l'extension ?", [], RewritingLLM("x")),  # nothing to refer to
    ("Et avec l'extension ?", HISTORY, type("Offline", (), {"available": False})()),
], ids=["stands-alone", "first-question", "no-llm"])
def test_no_call_when_there_is_nothing_to_rewrite(pool, question, history, llm):
    assert standalone_question(question, history, llm, executor=pool) is None
    assert not getattr(llm, "calls", [])


@pytest.mark.parametrize("llm", [
    RewritingLLM(error=LLMTimeout("no answer within 10 s")),
    RewritingLLM(""),
    RewritingLLM("Et avec l'extension ?"),  # the question itself
    RewritingLLM("x" * 600),  # not a question
    RewritingLLM("rules"),  # a word, not the question rewritten
    RewritingLLM(error=RuntimeError("the backend broke")),  # not an LLMError: still the offline text
], ids=["timeout", "empty", "unchanged", "too-long", "one-word", "other-error"])
def test_a_failed_rewrite_leaves_the_offline_text(pool, llm):
    assert standalone_question("Et avec l'extension ?", HISTORY, llm, executor=pool) is None
