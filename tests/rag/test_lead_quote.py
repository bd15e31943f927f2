"""The lead quote states the answer: a short sentence goes on with the ones after it on its
page (up to SHORT_SENTENCE), and a « how many » question quotes the sentence with the number."""

from rag.quotes import best_quote
from rag.retrieve import BookletRef, RetrievedChunk

BOOKLET = BookletRef("rules_x", "x", "X", language="en")


def chunk(text):
    payload = {"text": text, "page_start": 2, "page_end": 2, "page_offsets": [[2, 0]], "hierarchy_path": "Missions"}
    return RetrievedChunk(id="m", booklet=BOOKLET, payload=payload, score=1.0, fusion_score=1.0, dense_score=0.9)


def test_the_sentence_after_a_middling_one_comes_with_it():
    text = ("Each player looks at their missions and decides which two of them to keep as their mandatory "
            "missions for the whole game, royal or princely. The 3 other missions are optional. "
            "Scoring happens at the end.")

    quote = best_quote("which missions are mandatory, which are optional?", chunk(text))

    assert "The 3 other missions are optional." in quote.text


def test_a_how_many_question_quotes_the_sentence_stating_the_number():
    text = ("Objectives are markers you place on the battlefield before the first turn begins. "
            "Units score objectives they stand on at the end of each round.\n\n"
            "Mission: place three objectives in the middle of the table, away from the edges of the battlefield "
            "and from each other, so that the armies must fight for them over several rounds and turns.")

    quote = best_quote("how many objectives do we place?", chunk(text))

    assert quote.text.startswith("Mission: place three objectives")
