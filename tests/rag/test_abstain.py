"""Offline abstention: when no passage states what the question asks, the answer says so first
(in the question's language), offers the closest passages as such, and is labelled « ne
tranchent pas »; a question the booklets answer gets its answer, as before."""

from dataclasses import replace

from rag.abstain import STATED_BELOW, statement_coverage
from rag.confidence import THRESHOLDS, level_of, signals_of
from rag.extractive import extractive_answer
from rag.retrieve import retrieve
from tests.rag.corpus import BASE, EXPANSION, embedder, memory_store


def ask(store, question, below=STATED_BELOW):
    found = retrieve(question, store=store, embedder=embedder(), booklets=[BASE, EXPANSION])
    chunks = found.chunks[:8]
    answer = extractive_answer(question, chunks, best_score=found.best_score, min_score=0.0, embedder=embedder(),
                               abstain_below=below)  # fmt: skip
    return answer, level_of(signals_of(question, chunks, found.best_score), replace(THRESHOLDS, abstain_below=below))


def test_with_abstention_off_the_default_the_closest_passages_are_quoted_as_an_answer():
    store = memory_store()

    answer, _level = ask(store, "Existe-t-il une application officielle pour tablette ?", below=0.0)

    assert answer.startswith("D'après les livrets")


def test_a_question_the_booklets_do_not_answer_is_said_so_then_the_closest_passages():
    store = memory_store()

    answer, level = ask(store, "Existe-t-il une application officielle pour tablette ?")

    assert answer.startswith("Les livrets ne le disent pas. Les passages les plus proches :\n\n- [")
    assert level == "low"


def test_in_english_the_rulebooks_do_not_say():
    store = memory_store()

    answer, level = ask(store, "Is there an official app to play online on a tablet?")

    assert answer.startswith("The rulebooks don't say. The closest passages:")
    assert level == "low"


def test_questions_the_booklets_answer_are_answered_in_either_language():
    store = memory_store()

    for question in ("Combien de cartes pioche le joueur actif au début de son tour ?",
                     "Which tyres can a player choose before the race?",
                     "Quels pneus un joueur peut-il choisir avant la course ?"):
        answer, _level = ask(store, question)
        assert answer.startswith(("D'après les livrets", "According to the booklets")), (question, answer)


def test_the_game_s_name_is_no_key_term():
    store = memory_store()
    found = retrieve("Course Folle se joue-t-elle sur tablette ?", store=store, embedder=embedder(), booklets=[BASE])
    # « course », « folle » are in the booklet's name: only « tablette » (« joue » is common) counts
    assert statement_coverage("Course Folle se joue-t-elle sur tablette ?", found.chunks) < 0.5
