"""Assign each question of a set to the dev or the test split, deterministically.

    .venv/bin/python -m eval.split_cr eval/sets/comprules.jsonl eval/sets/demo.jsonl

Questions are grouped by (lang, kind); inside a group they are ordered by a SHA-256 of their
id and the first 40% (at least one, and never all of a group of two or more) go to dev, the
rest to test. The split of a question therefore depends only on its id and its group, so
adding questions to a set moves few existing ones. Rewrites each file in place, keeping the
other fields and their order.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

DEV_SHARE = 0.4


def id_hash(question_id: str) -> str:
    return hashlib.sha256(question_id.encode("utf-8")).hexdigest()


def dev_count(size: int) -> int:
    if size < 2:
        return 0
    return min(size - 1, max(1, round(size * DEV_SHARE)))


def assign(questions: list[dict]) -> None:
    groups = defaultdict(list)
    for question in questions:
        groups[(question["lang"], question["kind"])].append(question)
    for members in groups.values():
        members.sort(key=lambda q: id_hash(q["id"]))
        wanted = dev_count(len(members))
        for rank, question in enumerate(members):
            question["split"] = "dev" if rank < wanted else "test"


def split_file(path: Path) -> dict:
    questions = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assign(questions)
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    counts = defaultdict(int)
    for question in questions:
        counts[question["split"]] += 1
    return dict(counts)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    for name in argv:
        print(name, split_file(Path(name)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
