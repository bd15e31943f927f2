"""The label of an answer read back (the answer page, GET /api/ask/{id}, a conversation): an
answer stored before the `unsettled` signal existed is judged on its text too, so an old
« Les règles ne précisent pas… » is not shown as « Réponse probable »."""

from questions.confidence import confidence_of

SURE = {"best_cosine": 0.93, "margin": 0.4, "agreement": True, "key_terms": 1.0, "search_rank": 0}


def test_an_answer_stored_before_the_signal_is_judged_on_its_text():
    silent = confidence_of(0.93, SURE, "Les règles ne précisent pas si l'on peut rejouer.")
    answered = confidence_of(0.93, SURE, "On pioche deux cartes [Livret, p.3 : « Piochez deux cartes. »]")

    assert silent.level == "low"
    assert answered.level == "high"


def test_a_stored_signal_is_the_one_that_counts():
    assert confidence_of(0.93, {**SURE, "unsettled": True}, "On pioche deux cartes.").level == "low"
    assert confidence_of(0.93, {**SURE, "unsettled": False}, "Les règles ne précisent pas si…").level == "high"
