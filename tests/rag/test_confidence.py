"""The confidence level shown with an answer: « clairement » only when every signal agrees,
never on the best cosine alone."""

from dataclasses import replace

import pytest

from rag.abstain import says_unsettled
from rag.confidence import THRESHOLDS, Signals, level_of


def signals(**changes):
    sure = dict(best_cosine=0.93, margin=0.3, agreement=True, key_terms=1.0, search_rank=0)
    return Signals(**{**sure, **changes})


def test_high_only_when_every_signal_agrees():
    assert level_of(signals()) == "high"
    assert level_of(signals(agreement=False)) == "medium"  # only one search found the passage
    assert level_of(signals(key_terms=0.25)) == "medium"  # the quote misses most of the question's words
    assert level_of(signals(search_rank=4)) == "medium"  # a search ranked it far down
    assert level_of(signals(best_cosine=THRESHOLDS.high_cosine - 0.01)) == "medium"


def test_low_when_the_passages_are_far_or_the_quote_holds_none_of_the_words():
    assert level_of(signals(best_cosine=THRESHOLDS.low_cosine - 0.01)) == "low"
    assert level_of(signals(key_terms=0.0)) == "low"


def test_low_when_no_passage_states_what_is_asked_with_abstention_on():
    abstaining = replace(THRESHOLDS, abstain_below=0.25)  # ASK_ABSTAIN_BELOW 0.25
    assert level_of(signals(stated=0.2), abstaining) == "low"
    assert level_of(signals(stated=0.25), abstaining) == "high"
    assert level_of(signals(stated=0.2)) == "high"  # off, the default: the share alone never lowers it


def test_signals_survive_the_round_trip_through_the_diagnostics():
    stored = signals().as_dict()
    assert Signals.from_dict(stored) == signals()
    assert Signals.from_dict({"best_cosine": "x"}) is None


def test_after_a_rerank_the_margin_is_the_fused_orders():
    from rag.confidence import signals_of
    from rag.retrieve import BookletRef, RetrievedChunk

    booklet = BookletRef("rules_x", "x", "X", language="en")

    def passage(name, fused, rerank=None):
        text = "The active player draws two cards at the start of the turn."
        return RetrievedChunk(id=name, booklet=booklet, payload={"text": text, "page_start": 1}, score=1.0,
                              fusion_score=fused, dense_score=0.9, rerank_score=rerank)

    question = "How many cards does the active player draw?"
    fused_order = signals_of(question, [passage("a", 1.0), passage("b", 0.6)], 0.9)
    reranked = signals_of(question, [passage("b", 0.6, rerank=5.0), passage("a", 1.0, rerank=4.0)], 0.9)
    assert fused_order.margin == reranked.margin == 0.4  # not (0.6 − 1.0) / 0.6, never « high » then


def test_low_when_the_answer_says_the_booklets_do_not_say_whatever_the_scores():
    assert level_of(signals(unsettled=True)) == "low"
    assert Signals.from_dict({**signals(unsettled=True).as_dict()}).unsettled is True
    assert Signals.from_dict({k: v for k, v in signals().as_dict().items() if k != "unsettled"}).unsettled is False


@pytest.mark.parametrize("answer", [
    "Les livrets ne le disent pas. Les passages les plus proches :", "**Les règles ne précisent pas** combien…",
    "Les règles du jeu ne tranchent pas ce cas.", "Les livrets n'en disent rien.", "The rulebooks don't say.",
    "The provided rules do not specify whether…", "  The rules don't cover this case.", "Le livret ne le dit pas.",
    "La règle ne précise pas si l'on peut…", "Les règles du jeu de base ne précisent pas.", "Les livrets ne l'indiquent pas.",
    "**Réponse :** Les livrets ne le disent pas.", "The rulebooks do not explicitly say.", "The rules of the game don't say.",
    "**Short answer:** the rulebook doesn't say.", "## Réponse\n\nLes livrets ne le disent pas.", "The rules don't cover it.",
    "Les livrets ne tranchent pas la question.", "Les règles ne précisent pas ce point.", "This rulebook doesn't say.",
    "In short, the rules don't say.", "Le livret ne dit pas ce qui se passe dans ce cas.",
    "Les livrets ne parlent pas de ce cas.", "Les règles ne traitent pas de cette situation. Au plus proche :",
])
def test_an_answer_opening_on_the_booklets_silence_says_so(answer):
    assert says_unsettled(answer)


@pytest.mark.parametrize("answer", [
    "Oui. Les règles ne disent pas qu'il faut attendre.", "Non, les livrets ne le permettent pas.",
    "Yes: the rules don't say you must wait.", "Les règles disent que non.", "",
    "Les règles ne disent pas qu'il faut attendre : vous pouvez jouer tout de suite.",
    "Les livrets ne précisent pas de limite : posez-en autant que vous voulez.",
    "The rules don't say you have to wait, so yes.", "The rulebook doesn't specify a limit, so you may.",
    "Les livrets ne disent pas non plus qu'il faut défausser : gardez-la.", "The rules don't say so, so no, you cannot.",
    "Réponse : on pioche deux cartes.", "The rules don't say it's forbidden, so yes, you can.",
    "Les règles ne disent pas ce que tu crois : tu peux attaquer.", "Les règles ne précisent pas cette limite : il n'y en a pas.",
    "Les règles ne parlent pas de cette carte comme d'un sort : jouez-la quand vous voulez.",
    "Les règles ne parlent pas de ce cas précis : oui, vous pouvez.", "Le livret ne parle pas de ce casse-tête : jouez.",
    "Les livrets ne parlent pas de ce cas, mais la règle générale s'applique : vous piochez deux cartes.",
    "Les règles ne parlent pas de ces cas séparément : on applique la même règle.",
])
def test_an_answer_that_answers_is_not_taken_for_silence(answer):
    assert not says_unsettled(answer)
