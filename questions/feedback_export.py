"""The 👎 answers as evaluation cases, in the question sets' format (eval/sets.py):

    {"id": "feedback-1a2b3c4d", "game": "<slug>", "question": "…", "lang": "fr"|"en",
     "gold": [{"booklet": "<slug>", "page": 12}], "history": ["previous question", …],
     "kind": "feedback", "notes": "<the player's comment>", "answerable": true, "split": "dev"}

The gold page is where the staff who reviewed the answer says the right passage is
(`expected_booklet`, `expected_page`, edited in the admin): a 👎 without an expected page is
not a case yet (a case without gold would count as a miss whatever the Oracle answers), so
it is left out and counted. Split dev: feedback is material to tune on, not to report.
`python -m eval.run --cases FILE` runs the file (docs/asking.md, « Feedback as evaluation cases »).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from rag.language import detect, normalise

from .models import Question


@dataclass
class Export:
    cases: list[dict] = field(default_factory=list)
    without_page: int = 0  # 👎 left out: nobody said yet where the right passage is


def disliked(game_slug: str | None = None):
    """The 👎 questions, oldest first (of one game when `game_slug` is given)."""
    questions = Question.objects.filter(rating=Question.Rating.DOWN).select_related("game").order_by("created_at")
    return questions.filter(game__slug=game_slug) if game_slug else questions


def as_case(question: Question) -> dict:
    game = question.game
    history = [turn["question"] for turn in question.history if isinstance(turn, dict) and turn.get("question")]
    case = {
        "id": f"feedback-{question.pk.hex[:8]}",
        "game": game.slug,
        "question": question.text,
        "lang": detect(question.text) or normalise(game.language) or "fr",
        "gold": [{"booklet": question.expected_booklet or game.slug, "page": question.expected_page}],
    }
    if history:
        case["history"] = history
    case.update(kind="feedback", notes=question.feedback_comment, answerable=True, split="dev")
    return case


def export_cases(questions) -> Export:
    """The cases of the 👎 among `questions`; the others (👍, no feedback) are ignored."""
    export = Export()
    for question in questions:
        if question.rating != Question.Rating.DOWN:
            continue
        if question.expected_page is None:
            export.without_page += 1
        else:
            export.cases.append(as_case(question))
    return export


def to_jsonl(cases: list[dict]) -> str:
    return "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)
