"""The question sets: frozen, stratified splits and checks against the PDFs' pages."""

import json

from eval import check_sets, sets


def questions(game, lang, count):
    return [{"id": f"rb-{game}-{lang}-{n:03d}", "game": game, "lang": lang} for n in range(count)]


def test_each_game_and_language_gets_both_splits_about_forty_percent_dev():
    pool = questions("arcmage", "fr", 5) + questions("arcmage", "en", 20) + questions("d0x3d", "fr", 2)
    sets.assign_splits(pool)
    for game, lang, dev in (("arcmage", "fr", 2), ("arcmage", "en", 8), ("d0x3d", "fr", 1)):
        members = [q for q in pool if q["game"] == game and q["lang"] == lang]
        assert sum(q["split"] == "dev" for q in members) == dev


def test_the_split_depends_on_the_id_not_on_the_order_and_an_existing_split_is_kept():
    first = sets.assign_splits(questions("arcmage", "en", 12))
    second = sets.assign_splits(list(reversed(questions("arcmage", "en", 12))))
    assert {q["id"]: q["split"] for q in first} == {q["id"]: q["split"] for q in second}
    frozen = [{**q, "split": "test"} for q in questions("arcmage", "en", 3)]
    assert [q["split"] for q in sets.assign_splits(frozen)] == ["test"] * 3


def test_load_all_keeps_the_split_asked_for_and_names_the_sets(tmp_path):
    lines = [{"id": "a", "game": "g", "lang": "en", "split": "dev"}, {"id": "b", "game": "g", "lang": "en", "split": "test"}]
    (tmp_path / "comprules.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert [q["id"] for q in sets.load_all("test", tmp_path)] == ["b"]
    assert [q["set"] for q in sets.load_all("all", tmp_path)] == ["comprehensive-rules"] * 2


def demo_question(**fields):
    return {"id": "demo-x", "game": "les-aeronautes", "lang": "fr", "answerable": True, "split": "test",
            "gold": [{"booklet": "les-aeronautes", "page": 3}], **fields}


def test_an_expected_fact_must_be_on_a_gold_page_of_the_pdf():
    assert check_sets.problems_of(demo_question(expected_fact="4 jetons Flamme et 2 sacs de Lest")) == []
    wrong = check_sets.problems_of(demo_question(expected_fact="6 jetons Flamme"))
    assert wrong == ["demo-x: expected fact '6 jetons Flamme' is not on its gold pages"]


def test_a_gold_page_or_booklet_that_does_not_exist_is_reported():
    problems = check_sets.problems_of(demo_question(gold=[{"booklet": "les-aeronautes", "page": 99},
                                                          {"booklet": "secret-hitler", "page": 1}]))
    assert any("page 99 is not in" in p for p in problems)
    assert any("'secret-hitler' is not a booklet of les-aeronautes" in p for p in problems)
    assert check_sets.problems_of(demo_question(answerable=False)) == ["demo-x: unanswerable but has a gold"]


def test_a_gold_given_by_rule_number_alone_needs_no_page():
    question = demo_question(gold=[{"rule": "3.4"}], expected_fact=None)
    assert check_sets.problems_of(question) == []


def test_a_fact_on_a_scanned_page_is_not_checked_against_its_missing_text_layer():
    """The demo's FAQ is a scan (read by OCR at ingestion): pdftotext finds no text on it, so
    a fact cannot be looked for there, nor reported missing, even beside a page with text."""
    faq = demo_question(gold=[{"booklet": "les-aeronautes-faq", "page": 1}], expected_fact="Seul un ballon en vol")
    both = demo_question(gold=[{"booklet": "les-aeronautes-faq", "page": 1}, {"booklet": "les-aeronautes", "page": 3}],
                         expected_fact="Seul un ballon en vol")  # fmt: skip

    assert check_sets.problems_of(faq) == []
    assert check_sets.problems_of(both) == []
    assert check_sets.problems_of(demo_question(expected_fact="6 jetons Flamme"))  # text pages alone: still checked
