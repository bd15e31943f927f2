"""What counts as a hit for the evaluation: gold pages, gold rules, cited pages, expected facts."""

from rag.retrieve import BookletRef, RetrievedChunk

from eval import metrics

BASE = BookletRef(collection="rules_secret-hitler", slug="secret-hitler", name="Secret Hitler")
XL = BookletRef(collection="rules_secret-hitler-xl", slug="secret-hitler-xl", name="Secret Hitler XL", kind="extension")


def chunk(booklet, start, end=None, text="", **payload):
    payload = {"text": text, "page_start": start, "page_end": end or start, **payload}
    return RetrievedChunk(id=f"{booklet.slug}-{start}", booklet=booklet, payload=payload, score=1.0, fusion_score=1.0)


def test_a_fact_is_found_whatever_the_case_accents_quotes_and_line_hyphens():
    page = "Hitler doesn\u2019t know the Fascists. Play proceeds counter\u00ad\nclockwise. « Écartées définitivement »"
    assert metrics.holds_fact("hitler doesn't know the fascists", [page])
    assert metrics.holds_fact("Play proceeds counter-clockwise", [page])
    assert metrics.holds_fact("ecartees definitivement", [page])
    assert not metrics.holds_fact("Hitler knows the Fascists", [page])


def test_the_citations_of_an_answer_are_read_in_order():
    answer = ('- [Secret Hitler XL, p.7 : "The Chancellor can secretly look"] _(Article 48)_\n'
              '- [Secret Hitler, p.5 : "Policy Peek"]')
    assert metrics.citations(answer) == [
        ("Secret Hitler XL", 7, "The Chancellor can secretly look"), ("Secret Hitler", 5, "Policy Peek"),
    ]


def test_the_rank_is_the_first_chunk_of_the_gold_booklet_covering_the_gold_page():
    chunks = [chunk(BASE, 7), chunk(BASE, 3, 4), chunk(XL, 4)]
    assert metrics.rank_of_gold(chunks, [{"booklet": "secret-hitler-xl", "page": 4}]) == 3
    assert metrics.rank_of_gold(chunks, [{"booklet": "secret-hitler", "page": 4}]) == 2
    assert metrics.rank_of_gold(chunks, [{"booklet": "secret-hitler", "page": 6}]) is None


def test_a_rule_gold_is_hit_by_the_chunk_stating_that_rule_not_by_one_citing_it():
    citing = chunk(BASE, 180, text="Example: see rule 702.19b for trample.")
    stating = chunk(BASE, 181, text="702.19. Trample\n702.19a Trample is a static ability.")
    gold = [{"booklet": "secret-hitler", "page": 999, "rule": "702.19"}]
    assert metrics.rank_by_rule([citing, stating], gold) == 2
    assert metrics.rank_by_rule([citing, stating], [{"booklet": "x", "page": 1}]) is None
    assert metrics.rank_by_rule([chunk(BASE, 1, rule_numbers=["702.19"])], gold) == 1


def test_a_glossary_gold_is_hit_by_the_glossary_chunk_holding_that_entry():
    rules = chunk(BASE, 90, text="702.111. Menace\n702.111a Menace is an evasion ability.", hierarchy_path="7. Additional Rules")
    other = chunk(BASE, 236, text="Mana The primary resource in the game. See rule 106.", hierarchy_path="Glossary")
    entry = chunk(BASE, 237, text="Mana Ability An activated ability.\n\nMana Burn (Obsolete) Older versions of the rules.",
                  hierarchy_path="Glossary")
    gold = [{"booklet": "secret-hitler", "page": 237, "rule": "glossary:Mana Burn (Obsolete)"}]
    assert metrics.rank_by_rule([rules, other, entry], gold) == 3
    assert metrics.rank_by_rule([rules, other], gold) is None
    assert metrics.rank_by_rule([rules, entry], [{"rule": "glossary:Menace"}]) is None  # not in the glossary


def test_a_citation_is_right_only_on_a_gold_page_of_the_gold_booklet():
    slug_of = {"Secret Hitler": "secret-hitler", "Secret Hitler XL": "secret-hitler-xl"}
    gold = [{"booklet": "secret-hitler-xl", "page": 7}]
    assert metrics.citation_right(("Secret Hitler XL", 7, "…"), gold, slug_of)
    assert not metrics.citation_right(("Secret Hitler", 7, "…"), gold, slug_of)
    assert not metrics.citation_right(None, gold, slug_of)


def test_confidence_levels_report_coverage_over_answerable_questions_and_precision_when_shown():
    rows = [
        {"answerable": True, "rank": 1, "confidence": "high", "first_citation_right": True},
        {"answerable": True, "rank": 2, "confidence": "high", "first_citation_right": False},
        {"answerable": True, "rank": None, "confidence": "low", "first_citation_right": False},
        {"answerable": True, "rank": 1, "confidence": "medium", "first_citation_right": True},
        {"answerable": False, "rank": None, "confidence": "high", "first_citation_right": False},
    ]
    table = metrics.summarise(rows)["confidence"]
    assert table["high"] == {"shown": 2, "coverage": 0.5, "precision": 0.5, "unanswerable_shown": 1}
    assert table["low"]["precision"] == 0.0
    summary = metrics.summarise(rows)
    assert (summary["answerable"], summary["recall@1"], summary["recall@5"]) == (4, 0.5, 0.75)
    assert summary["first_citation_right"] == 0.5



def test_abstention_is_reported_apart_for_answerable_and_unanswerable_questions():
    rows = [
        {"answerable": True, "rank": 1, "abstained": False},
        {"answerable": True, "rank": 1, "abstained": True},
        {"answerable": True, "rank": 1, "abstained": False},
        {"answerable": True, "rank": 1, "abstained": False},
        {"answerable": False, "rank": None, "abstained": True},
        {"answerable": False, "rank": None, "abstained": False},
    ]
    summary = metrics.summarise(rows)
    assert (summary["abstained_answerable"], summary["abstained_unanswerable"], summary["n_unanswerable"]) == (0.25, 0.5, 2)
