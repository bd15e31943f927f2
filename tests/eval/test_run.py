"""How eval.run picks and asks the questions."""

import argparse

import pytest

from eval.run import query_text, select


def test_a_follow_up_is_asked_bare_unless_history_is_asked_for():
    question = {"question": "and with 8 players?", "history": ["At 5 players, do Hitler and the fascist meet?"]}
    assert query_text(question, with_history=False) == "and with 8 players?"
    assert query_text(question, with_history=True) == "At 5 players, do Hitler and the fascist meet? and with 8 players?"


def test_the_old_set_names_still_select_the_legacy_sets_and_an_unknown_one_is_an_error():
    assert {q["set"] for q in select(argparse.Namespace(split="dev", set="corpus", games=None))} == {
        "legacy-rulebooks", "legacy-comprules",
    }
    with pytest.raises(SystemExit, match="no such set"):
        select(argparse.Namespace(split="dev", set="rulebookz", games=None))


def test_the_test_split_holds_only_test_questions_of_the_games_asked_for():
    chosen = select(argparse.Namespace(split="test", set="rulebooks,unseen", games="arcmage,maerstanas"))
    assert chosen and {q["split"] for q in chosen} == {"test"}
    assert {q["game"] for q in chosen} == {"arcmage", "maerstanas"}
