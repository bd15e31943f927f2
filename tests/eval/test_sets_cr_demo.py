"""The Comprehensive Rules and demo question sets (eval/sets/) are well formed, their split
is stratified and stable, and each demo question's expected fact stands on its gold page
as a reader gets it (text layer, or OCR for the scanned FAQ)."""

import json
import re
import subprocess
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

import pytest
import pytesseract
from pdf2image import convert_from_path

from eval.split_cr import assign
from games.demo.loader import DEMO_DIR, read_manifest

SETS_DIR = Path(__file__).resolve().parents[2] / "eval" / "sets"
KINDS = {"fact", "keyword", "situation", "override", "followup", "glossary"}
MANIFEST = read_manifest()
PDFS = {booklet["slug"]: DEMO_DIR / booklet["file"] for booklet in MANIFEST["booklets"]}
RULE = re.compile(r"^(\d{3}\.\d+[a-z]?|\d{3}\.\d+|glossary:.+)$")


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (SETS_DIR / name).read_text(encoding="utf-8").splitlines() if line.strip()]


CR, DEMO = load("comprules.jsonl"), load("demo.jsonl")


@pytest.mark.parametrize(("questions", "prefix", "game"), [(CR, "cr-", "mtg"), (DEMO, "demo2-", "les-aeronautes")])
def test_every_question_has_the_fields_a_report_needs(questions, prefix, game):
    assert len({q["id"] for q in questions}) == len(questions)
    for q in questions:
        assert q["id"].startswith(prefix) and q["game"] == game, q["id"]
        assert q["lang"] in {"fr", "en"} and q["kind"] in KINDS and q["split"] in {"dev", "test"}, q["id"]
        assert q["question"].strip() and 2 <= len(q["expected_fact"].split()) <= 8, q["id"]
        assert q["gold"] and all(g["page"] >= 1 for g in q["gold"]), q["id"]
        assert (q["kind"] == "followup") == bool(q.get("history")), q["id"]


def test_comprehensive_rules_gold_names_the_rule_and_the_booklet():
    for q in CR:
        for gold in q["gold"]:
            assert gold["booklet"] == "mtg" and 1 <= gold["page"] <= 258, q["id"]
            assert RULE.match(gold["rule"]), (q["id"], gold["rule"])
    french = sum(q["lang"] == "fr" for q in CR)
    assert len(CR) >= 110 and french >= 0.35 * len(CR)


def test_demo_set_asks_overrides_and_follow_ups_whose_gold_is_the_expansion():
    expansion = "les-aeronautes-storm-front"
    for q in DEMO:
        if q["kind"] == "override":
            assert {g["booklet"] for g in q["gold"]} == {expansion}, q["id"]
    kinds = Counter((q["kind"], q["lang"]) for q in DEMO)
    assert all(kinds[(kind, lang)] for kind in ("override", "followup") for lang in ("fr", "en"))


@pytest.mark.parametrize("questions", [CR, DEMO], ids=["comprules", "demo"])
def test_split_is_stratified_and_depends_only_on_the_ids(questions):
    groups = defaultdict(set)
    for q in questions:
        groups[(q["lang"], q["kind"])].add(q["split"])
    assert all(splits == {"dev", "test"} for splits in groups.values()), groups
    dev = sum(q["split"] == "dev" for q in questions) / len(questions)
    assert 0.3 <= dev <= 0.5
    again = [dict(q, split=None) for q in reversed(questions)]
    assign(again)
    assert {q["id"]: q["split"] for q in again} == {q["id"]: q["split"] for q in questions}


@cache
def readable_text(booklet: str, page: int) -> str:
    path = PDFS[booklet]
    text = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(path), "-"],
                          capture_output=True, text=True, check=True).stdout
    if not text.strip():
        image = convert_from_path(str(path), dpi=300, first_page=page, last_page=page)[0]
        text = pytesseract.image_to_string(image, lang="fra+eng")
    return " ".join(text.replace("’", "'").split())


@pytest.mark.parametrize("question", DEMO, ids=[q["id"] for q in DEMO])
def test_demo_expected_fact_stands_on_the_first_gold_page(question):
    gold = question["gold"][0]
    assert question["expected_fact"].replace("’", "'") in readable_text(gold["booklet"], gold["page"])
