"""Expansion, variant and mode passages lead an answer only when they apply to the question
(rag.overrides): a base-game question keeps the base rule first and is offered the team mode
« En variante »; naming the mode (or the expansion) lets it lead; generic words (« also »,
« now », « instead ») never announce a change."""

from rag.extractive import extractive_answer
from rag.overrides import overrides_first
from rag.retrieve import BookletRef, RetrievedChunk

BASE = BookletRef("rules_hitler", "hitler", "Secret Hitler", "base", language="en")
XL = BookletRef("rules_hitler-xl", "hitler-xl", "Secret Hitler XL", "extension", language="en")
BASE_RULE = ("Election\nIf the vote passes, the President and Chancellor enact a policy. "
             "The President draws the top three tiles from the Policy deck.")
TEAM_RULE = ("Team game with 8 to 16 players\nThis replaces rule 4.2 of the base game: the President "
             "draws the top four tiles from the Policy deck, and the team votes together.")
CREDITS = ("Thanks\nThe President now also thanks our playtesters, who draw tiles from the deck instead of sleeping.")


def chunk(id_, booklet, text, page, **payload):
    data = {"text": text, "page_start": page, "page_end": page, "hierarchy_path": text.split("\n", 1)[0], **payload}
    return RetrievedChunk(id=id_, booklet=booklet, payload=data, score=1.0, fusion_score=1.0, dense_score=0.9)


def found():
    base = chunk("b", BASE, "4.2 " + BASE_RULE, 4)
    team = chunk("t", XL, TEAM_RULE, 3, conflict_candidates=[{"base_chunk_id": "b", "similarity": 0.9, "base_page": 4}],
                 conflict_base_chunk_id="b")
    credits = chunk("c", XL, CREDITS, 8, conflict_candidates=[{"base_chunk_id": "b", "similarity": 0.9, "base_page": 4}],
                    conflict_base_chunk_id="b")
    filler = chunk("f", BASE, "Setup\nEach player takes a secret role envelope.", 2)
    return [base, filler, credits, team]


def answer(question):
    ordered = overrides_first(found(), question)
    return ordered, extractive_answer(question, ordered, best_score=0.9, min_score=0.8)


def test_a_base_game_question_keeps_the_base_rule_first_and_offers_the_team_mode_as_a_variant():
    ordered, text = answer("How many policy tiles does the President draw?")
    assert ordered[0].id == "b" and ordered[0].booklet is BASE
    assert not any(c.overrides for c in ordered)
    assert text.startswith("According to the booklets:"), text
    assert text.index("[Secret Hitler, p.4") < text.index("As a variant:") < text.index("[Secret Hitler XL, p.3")
    assert "changes this rule" not in text


def test_the_same_question_in_french_offers_it_en_variante():
    _, text = answer("Combien de tuiles Politique le Président pioche-t-il ?")
    assert text.startswith("D'après les livrets :") and "En variante :" in text and "modifie cette règle" not in text


def test_naming_the_mode_lets_the_team_rule_lead():
    for question in ("In the team game, how many policy tiles does the President draw?",
                     "With 10 players, how many policy tiles does the President draw?",
                     "In XL, how many policy tiles does the President draw?"):
        ordered, text = answer(question)
        assert ordered[1].id == "t" and ordered[1].overrides is ordered[0], question
        assert text.startswith("Secret Hitler XL changes this rule (base rulebook, p.4):"), (question, text)
        assert "As a variant:" not in text


def test_generic_words_alone_never_announce_a_change():
    base = chunk("b", BASE, "4.2 " + BASE_RULE, 4)
    credits = chunk("c", XL, CREDITS, 8, conflict_candidates=[{"base_chunk_id": "b", "similarity": 0.9, "base_page": 4}],
                    conflict_base_chunk_id="b")
    ordered = overrides_first([base, chunk("f", BASE, "Setup\nEach player takes a role.", 2), credits],
                              "In XL, does the President draw tiles from the deck?")
    assert [c.id for c in ordered] == ["b", "f", "c"] and credits.overrides is None and credits.variant_of is None
