"""Check the question sets against the PDFs, without ingesting anything:

    .venv/bin/python -m eval.check_sets [eval/sets/rulebooks.jsonl …]

- the game and each gold booklet exist (eval/booklets.py) and each gold page is in the PDF;
- the expected fact is on a gold page (pdftotext, 1-based pages as `-f` counts them, in its
  three reading orders: a fact in a two-column page may be whole in only one of them); a
  question with a gold page without a text layer (a scan, read by OCR at ingestion: the
  demo's FAQ) is not checked for its fact, a page pdftotext fails on is reported;
- ids are unique, splits are dev/test, unanswerable questions have no gold.
Exit status 1 when something is wrong, each problem on its own line.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from collections import Counter
from pathlib import Path

from eval.booklets import corpus_games, demo_games
from eval.metrics import holds_fact
from eval.sets import load, set_files

READING_ORDERS = ([], ["-layout"], ["-raw"])


@functools.cache
def booklet_paths() -> dict[tuple[str, str], str]:
    return {(g["slug"], b["slug"]): b["path"] for g in corpus_games() + demo_games() for b in g["booklets"]}


@functools.cache
def page_texts(path: str, page: int) -> tuple[str, ...]:
    texts = []
    for order in READING_ORDERS:
        done = subprocess.run(
            ["pdftotext", *order, "-f", str(page), "-l", str(page), path, "-"],
            capture_output=True, text=True, check=False,
        )
        if done.returncode != 0:
            raise ValueError(f"pdftotext failed on page {page} of {Path(path).name}: {done.stderr.strip()[:200]}")
        texts.append(done.stdout)
    return tuple(texts)


@functools.cache
def page_count(path: str) -> int:
    done = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True)
    return next(int(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("Pages:"))


def problems_of(question: dict) -> list[str]:
    where = question.get("id", "?")
    games = {game for game, _ in booklet_paths()}
    if question.get("game") not in games:
        return [f"{where}: unknown game {question.get('game')!r}"]
    found = []
    if question.get("split", "dev") not in ("dev", "test"):
        found.append(f"{where}: split must be dev or test")
    if not question["answerable"]:
        return found + ([f"{where}: unanswerable but has a gold"] if question.get("gold") else [])
    if not question.get("gold"):
        return found + [f"{where}: answerable without a gold"]
    texts, scanned = [], False
    for gold in question["gold"]:
        if "page" not in gold and gold.get("rule"):
            continue  # a rule-only gold: found by its number, whatever the page
        path = booklet_paths().get((question["game"], gold.get("booklet")))
        if path is None:
            found.append(f"{where}: booklet {gold.get('booklet')!r} is not a booklet of {question['game']}")
        elif not 1 <= int(gold.get("page", 0)) <= page_count(path):
            found.append(f"{where}: page {gold.get('page')} is not in {Path(path).name}")
        else:
            try:
                page = [text for text in page_texts(path, int(gold["page"])) if text.strip()]
            except ValueError as exc:
                found.append(f"{where}: {exc}")
                continue
            scanned = scanned or not page  # no text layer: the fact may be there, unseen
            texts += page
    fact = question.get("expected_fact")
    if fact and texts and not scanned and not holds_fact(fact, texts):
        found.append(f"{where}: expected fact {fact!r} is not on its gold pages")
    return found


def check(paths: list[Path]) -> list[str]:
    questions = [q for path in paths for q in load(path)]
    found = [f"duplicate id {i}" for i, n in Counter(q.get("id") for q in questions).items() if n > 1]
    for question in questions:
        found += problems_of(question)
    return found


def main(argv=None) -> int:
    names = argv if argv is not None else sys.argv[1:]
    paths = [Path(n) for n in names] or set_files()
    found = check(paths)
    for line in found:
        print(line)
    print(f"{len(found)} problem(s) in {', '.join(p.name for p in paths)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
