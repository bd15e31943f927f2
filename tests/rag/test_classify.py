"""Question intent: keyword rules in French and English without an LLM, priority
deckbuilding > meta > synergy > rules, and the LLM path with its timeout → rules."""

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rag.classify import classify, classify_offline
from rag.llm.base import HealthReport, LLMError, NoLLM


@pytest.mark.parametrize("question,intent", [
    ("Peut-on jouer une carte Boost après avoir dépassé la limite de vitesse ?", "rules"),
    ("What happens when a creature with deathtouch deals damage?", "rules"),
    ("Quelles cartes ont une synergie avec Llanowar Elves ?", "synergy"),
    ("Which cards work well with Lightning Bolt?", "synergy"),
    ("Quels sont les decks les plus joués en tournoi ?", "meta"),
    ("What is the current Modern metagame?", "meta"),
    ("Construis-moi un deck mono-rouge de 60 cartes avec sideboard", "deckbuilding"),
    ("Give me a full decklist for Riftbound, 40 + 12 runes", "deckbuilding"),
])
def test_keyword_rules_in_french_and_english(question, intent):
    assert classify_offline(question) == intent
    assert classify(question, NoLLM(), executor=CALLS) == intent


def test_deckbuilding_wins_over_meta_and_synergy():
    assert classify_offline("Une decklist du meta avec les meilleures synergies") == "deckbuilding"
    assert classify_offline("Les combos du meta en tournoi") == "meta"


CALLS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="test-llm-call")


class ScriptedLLM:
    name = "scripted"
    available = True

    def __init__(self, answer="", delay=0.0, error=None):
        self.answer, self.delay, self.error = answer, delay, error

    def complete(self, system, prompt, *, model="sonnet", timeout=None):
        time.sleep(self.delay)
        if self.error:
            raise self.error
        return self.answer

    def stream(self, *args, **kwargs):
        yield self.complete("", "")

    def health(self):
        return HealthReport(status="ok")


def test_llm_label_is_used_when_it_answers():
    assert classify("Comment on joue ?", ScriptedLLM("synergy"), executor=CALLS) == "synergy"
    assert classify("Comment on joue ?", ScriptedLLM("Catégorie : deckbuilding."), executor=CALLS) == "deckbuilding"


def test_llm_timeout_means_rules():
    assert classify("Quels decks sont les plus joués en tournoi ?", ScriptedLLM("meta", delay=2), timeout=0.2, executor=CALLS) == "rules"


def test_llm_failure_or_gibberish_falls_back_to_keywords():
    question = "Quels decks sont les plus joués en tournoi ?"
    assert classify(question, ScriptedLLM(error=LLMError("down")), executor=CALLS) == "meta"
    assert classify(question, ScriptedLLM("je ne sais pas"), executor=CALLS) == "meta"
