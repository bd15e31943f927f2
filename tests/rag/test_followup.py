"""A follow-up (« Et avec l'extension ? », "what about with 6 players?") is searched with the
conversation's previous question; a question that stands alone is searched alone."""

from rag.extractive import extractive_answer
from rag.followup import context_query, is_follow_up
from rag.retrieve import retrieve
from tests.rag.corpus import BASE, EXPANSION, embedder, memory_store

PREVIOUS = "Combien de cartes Chaleur défausse-t-on quand on dépasse la limite de vitesse dans un virage ?"


def test_short_or_continuing_questions_are_follow_ups():
    for text in ("Et avec l'extension ?", "et à 6 joueurs ?", "What about with 6 players?", "Et dans ce cas ?"):
        assert is_follow_up(text), text
    for text in ("How do the Liberals win the game?", "Combien de cartes pioche-t-on au début du tour ?"):
        assert not is_follow_up(text), text


def test_the_previous_question_is_searched_with_a_follow_up_only():
    history = [{"question": PREVIOUS, "answer": "Une carte par case."}]
    assert context_query("Et avec l'extension Heavy Rain ?", history) == f"{PREVIOUS} Et avec l'extension Heavy Rain ?"
    assert context_query("Et avec l'extension Heavy Rain ?", []) is None
    assert context_query("Quels pneus peut-on choisir avant la course ?", history) is None


def test_the_follow_up_is_answered_about_the_previous_question():
    store, model = memory_store(), embedder()
    follow_up = "Et avec l'extension ?"
    context = context_query(follow_up, [{"question": PREVIOUS, "answer": ""}])

    alone = retrieve(follow_up, store=store, embedder=model, booklets=[BASE, EXPANSION])
    found = retrieve(follow_up, store=store, embedder=model, booklets=[BASE, EXPANSION], context_text=context)
    answer = extractive_answer(follow_up, found.chunks, best_score=found.best_score, min_score=0.8,
                               embedder=model, search_text=context)

    alone_answer = extractive_answer(follow_up, alone.chunks, best_score=alone.best_score, min_score=0.8,
                                     embedder=model)
    lead = answer.split("\n\n")[1]
    assert "discard two Heat cards per space instead of one" in lead
    assert "Heat" not in alone_answer.split("\n\n")[1]  # alone, the follow-up is about something else
