"""eval.compare: two reports of the same questions, compared question by question."""

import json

import pytest

from eval.compare import main, paired, sign_test


def row(qid, rank, *, set_name="rulebooks", fact=None, answerable=True):
    return {"id": qid, "set": set_name, "rank": rank, "answerable": answerable, "fact_found": fact,
            "first_citation_right": rank == 1}


def test_the_sign_test_of_one_move_either_way_is_a_coin_toss_and_of_ten_to_none_is_not():
    assert sign_test(0, 0) == 1.0
    assert sign_test(2, 1) == 1.0
    assert sign_test(10, 0) == pytest.approx(2 / 2**10)
    assert sign_test(0, 10) == sign_test(10, 0)


def test_moves_are_counted_per_set_and_over_every_set_on_the_questions_both_answered():
    before = [row("a", 1), row("b", 2), row("c", 3), row("u", None, answerable=False),
              row("x", 2, set_name="unseen"), row("gone", 1)]
    after = [row("a", 2), row("b", 1), row("c", 1), row("u", None, answerable=False),
             row("x", 1, set_name="unseen"), row("new", 1)]
    groups = paired(before, after, "r1")
    assert groups["rulebooks"]["n"] == 3  # "u" has no R@1, "gone"/"new" are in one report only
    assert (groups["rulebooks"]["won"], groups["rulebooks"]["lost"]) == (["b", "c"], ["a"])
    assert groups["every set"]["won"] == ["b", "c", "x"] and groups["every set"]["n"] == 4
    assert list(groups)[-1] == "every set"


def test_a_fact_measure_leaves_out_questions_without_an_expected_fact():
    groups = paired([row("a", 1, fact=False), row("b", 1)], [row("a", 1, fact=True), row("b", 1)], "fact")
    assert groups["rulebooks"]["n"] == 1 and groups["rulebooks"]["won"] == ["a"]


def test_the_command_prints_the_table_and_names_what_moved(tmp_path, capsys):
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps({"report": {}, "questions": [row("a", 2), row("b", 1)]}))
    after.write_text(json.dumps({"report": {}, "questions": [row("a", 1), row("b", 1)]}))
    assert main([str(before), str(after), "--measure", "r1", "--list"]) == 0
    out = capsys.readouterr().out
    assert "| r1 | rulebooks | 2 | 1 | 0 | +1 | 1.000 |" in out
    assert "r1 rulebooks: won a; lost —" in out


def test_a_file_that_is_not_a_report_or_an_unknown_measure_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2]")
    with pytest.raises(SystemExit, match="not an eval.run --json report"):
        main([str(junk), str(junk)])
    with pytest.raises(SystemExit):
        main([str(junk), str(junk), "--measure", "r3"])
