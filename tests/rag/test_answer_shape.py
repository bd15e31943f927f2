"""What a player reads offline: an opening line in the question's language, the sentence that
answers quoted whole (never the tail of a sentence the chunking cut), at most two supporting
quotes as a markdown list, no booklet name said twice."""

import re

from rag.extractive import extractive_answer
from rag.retrieve import BookletRef, RetrievedChunk

CITATION = re.compile(r'\[(?P<booklet>[^\[\],]+), p\.(?P<page>\d+) : "(?P<quote>[^"]+)"\]')
BASE = BookletRef("rules_aero", "les-aeronautes", "Les Aéronautes", "base", language="fr")


def chunk(text, page, dense=0.9, path="", booklet=BASE, **payload):
    data = {"text": text, "page_start": page, "page_end": page, "page_offsets": [[page, 0]],
            "hierarchy_path": path, **payload}
    return RetrievedChunk(id=f"{booklet.slug}-{page}-{len(text)}", booklet=booklet, payload=data, score=1.0,
                          fusion_score=1.0, dense_score=dense)


PASSAGES = [
    chunk("de la case de départ. Chaque joueur reçoit 4 jetons Flamme au début de la partie. "
          "Les jetons restants forment la réserve.", 3, path="Les Aéronautes > 3. Mise en place"),
    chunk("À deux joueurs, chaque joueur commence avec 5 jetons Flamme au lieu de 4.", 3, 0.89,
          path="Les Aéronautes > 3.6 Compensations"),
    chunk("Monter coûte 1 jeton Flamme.", 5, 0.88, path="5. Les actions"),
    chunk("Le Phare rapporte 10 points.", 10, 0.88, path="9. Fin de partie"),
]


def test_a_french_question_opens_in_french_and_leads_with_the_whole_answering_sentence():
    answer = extractive_answer("Combien de jetons Flamme reçoit chaque joueur ?", PASSAGES, best_score=0.9, min_score=0.8)
    lines = answer.splitlines()
    assert lines[0] == "D'après les livrets :"
    lead = CITATION.search(lines[2])
    assert lead["quote"].startswith("Chaque joueur reçoit 4 jetons Flamme")  # not « de la case de départ. »
    assert "de la case de départ" not in lead["quote"]


def test_at_most_two_supporting_quotes_in_a_markdown_list():
    answer = extractive_answer("Combien de jetons Flamme reçoit chaque joueur ?", PASSAGES, best_score=0.9, min_score=0.8)
    assert len(CITATION.findall(answer)) <= 3
    listed = [line for line in answer.splitlines() if line.startswith("- [")]
    assert 1 <= len(listed) <= 2
    before_list = answer.splitlines()[answer.splitlines().index(listed[0]) - 1]
    assert before_list == ""  # a blank line: markdown renders a real list


def test_an_english_question_opens_in_english():
    answer = extractive_answer("How many Flame tokens does each player get?", PASSAGES, best_score=0.9, min_score=0.8)
    assert answer.startswith("According to the booklets:")


def test_the_booklet_name_is_not_repeated_in_the_section_path():
    answer = extractive_answer("Combien de jetons Flamme reçoit chaque joueur ?", PASSAGES, best_score=0.9, min_score=0.8)
    assert "Les Aéronautes ›" not in answer and "Les Aéronautes — Les Aéronautes" not in answer
    assert "_(3. Mise en place)_" in answer


def test_a_table_row_is_quoted_with_the_line_that_labels_it():
    table = chunk("9.2 Table de décompte\n\nCritère\n\nPoints\n\nChaque photo de Merveille\n\n3 points\n\n"
                  "Arrivée au Phare, 1er\n\n10 points", 10, path="9.2 Table de décompte")
    answer = extractive_answer("Combien de points pour l'arrivée au Phare en 1er ?", [table], best_score=0.9, min_score=0.8)
    quote = CITATION.search(answer)["quote"]
    assert "Arrivée au Phare, 1er" in quote and "10 points" in quote


def test_between_sentences_holding_as_many_words_the_rarer_word_is_quoted():
    # Each sentence holds two of the question's words; "unit" is in all three, "work" in two,
    # "regeneration" in one: the tie goes to the sentence holding the rarer word, not the first.
    english = BookletRef("rules_war", "wargame", "Wargame", "base", language="en")
    passage = chunk("Scout: a unit works alone on the flank. Slow: a slow unit works at half speed. "
                    "Regeneration: when this unit takes a wound, roll one die. On a 5+ it is ignored.",
                    13, booklet=english)
    answer = extractive_answer("Does regeneration work on a unit?", [passage], best_score=0.9, min_score=0.8)
    assert CITATION.search(answer)["quote"].startswith("Regeneration: when this unit takes a wound")
