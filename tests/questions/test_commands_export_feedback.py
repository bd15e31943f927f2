"""`manage.py export_feedback --out FILE` into a folder that does not exist: one line."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from questions.models import Question
from tests.factories import GameFactory, QuestionFactory

pytestmark = pytest.mark.django_db


def test_an_out_file_in_a_missing_folder_is_refused_in_one_line(tmp_path):
    heat = GameFactory(name="Heat", slug="heat", language="en")
    QuestionFactory(game=heat, text="How many laps?", status=Question.Status.DONE, answer="…",
                    rating=Question.Rating.DOWN, feedback_at=timezone.now(), expected_page=7)
    out = tmp_path / "missing" / "feedback.jsonl"
    err = io.StringIO()

    with pytest.raises(CommandError) as failed:
        call_command("export_feedback", "--out", str(out), stderr=err)

    assert str(failed.value) == f"{out}: No such file or directory"
    assert not out.parent.exists() and "written" not in err.getvalue()  # no claim of a file written
