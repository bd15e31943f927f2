"""The question sets: every `eval/sets/*.jsonl`, one JSON object per line.

    {"id": "rb-arcmage-001", "game": "arcmage", "question": "…", "lang": "fr"|"en",
     "gold": [{"booklet": "arcmage", "page": 2}] | [{"rule": "702.19", "booklet": …, "page": …}],
     "expected_fact": "verbatim words of the gold page" | null, "kind": "fact"|"override"|…,
     "history": ["previous question", …] (optional), "answerable": true (default),
     "split": "dev"|"test"}

The split is stored in each line and frozen: tune on `dev`, only report `test`. New lines
get theirs from `assign_splits` (python -m eval.sets FILE…), which never changes an existing one.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

SETS_DIR = Path(__file__).resolve().parent / "sets"
# The demo game's first set stays where the demo's tests and the load test read it; it was
# tuned on, so it is all dev (a line without a split is dev).
LEGACY_DEMO = Path(__file__).resolve().parent / "demo_questions.jsonl"
DEV_SHARE = 0.4
# The report's name for each file; a file not listed is reported under its own stem.
SET_NAMES = {"comprules": "comprehensive-rules", "demo_questions": "legacy-demo"}


def set_name(path: Path) -> str:
    return SET_NAMES.get(path.stem, path.stem)


def set_files(sets_dir: Path = SETS_DIR) -> list[Path]:
    extra = [LEGACY_DEMO] if LEGACY_DEMO.exists() and sets_dir == SETS_DIR else []
    return sorted(sets_dir.glob("*.jsonl")) + extra


def load(path: Path) -> list[dict]:
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            question = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path.name}:{number}: not JSON ({exc})") from exc
        question.setdefault("answerable", True)
        question["set"] = set_name(path)
        questions.append(question)
    return questions


def load_all(split: str = "dev", sets_dir: Path = SETS_DIR) -> list[dict]:
    """Every set's questions of that split ("all": both); a line without a split is dev."""
    questions = [q for path in set_files(sets_dir) for q in load(path)]
    return [q for q in questions if split == "all" or q.get("split", "dev") == split]


def _hash(question_id: str) -> str:
    return hashlib.sha256(question_id.encode("utf-8")).hexdigest()


def assign_splits(questions: list[dict], dev_share: float = DEV_SHARE) -> list[dict]:
    """Give a split to the questions without one, stratified by (game, language): within each
    stratum the ids are ordered by their hash and the first ~40% go to dev, so the choice does
    not depend on the order of the file, and each stratum of two or more has both splits."""
    strata = defaultdict(list)
    for question in questions:
        if not question.get("split"):
            strata[(question["game"], question["lang"])].append(question)
    for members in strata.values():
        members.sort(key=lambda q: _hash(q["id"]))
        dev = round(len(members) * dev_share)
        if len(members) >= 2:
            dev = min(max(dev, 1), len(members) - 1)
        for index, question in enumerate(members):
            question["split"] = "dev" if index < dev else "test"
    return questions


def write(path: Path, questions: list[dict]) -> None:
    keep = [{k: v for k, v in q.items() if k != "set"} for q in questions]
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in keep), encoding="utf-8")


def main(argv=None) -> int:
    for name in argv if argv is not None else sys.argv[1:]:
        path = Path(name)
        questions = assign_splits(load(path))
        write(path, questions)
        counts = defaultdict(int)
        for question in questions:
            counts[question["split"]] += 1
        print(f"{path}: {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
