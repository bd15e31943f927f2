"""Staff review the 👎 answers in the admin, say where the right passage is, and export them as
evaluation cases that eval.run loads like its own sets."""

import argparse
import io
import json

import pytest
from django.core.management import call_command
from django.utils import timezone

from eval.run import select
from eval.sets import load
from questions.models import Question
from tests.factories import ExtensionFactory, GameFactory, QuestionFactory


@pytest.fixture
def heat(db):
    return GameFactory(name="Heat", slug="heat", language="en")


def disliked(game, text, **fields):
    return QuestionFactory(
        game=game, text=text, status=Question.Status.DONE, answer="…", rating=Question.Rating.DOWN,
        feedback_at=timezone.now(), **fields,
    )


def test_a_disliked_answer_with_its_page_becomes_a_case_eval_run_loads(heat, tmp_path):
    storm = ExtensionFactory(game=heat, name="Rain", slug="heat-rain")
    disliked(heat, "Peut-on jouer une carte Boost après la limite de vitesse ?", expected_booklet="heat-rain",
             expected_page=4, feedback_comment="Le livret Pluie le dit page 4",
             history=[{"question": "Et sous la pluie ?", "answer": "…"}])
    disliked(heat, "How many heat cards do I start with?")  # nobody said where the answer is yet
    QuestionFactory(game=heat, text="Liked", rating=Question.Rating.UP, expected_page=2)
    out, err = tmp_path / "feedback.jsonl", io.StringIO()

    call_command("export_feedback", "--out", str(out), "--game", "heat", stderr=err)

    [case] = load(out)
    assert case["game"] == "heat" and case["lang"] == "fr" and case["split"] == "dev"
    assert case["question"] == "Peut-on jouer une carte Boost après la limite de vitesse ?"
    assert case["gold"] == [{"booklet": storm.slug, "page": 4}]
    assert case["history"] == ["Et sous la pluie ?"] and case["notes"] == "Le livret Pluie le dit page 4"
    assert case["answerable"] is True and case["id"].startswith("feedback-")
    assert "1 case(s) written" in err.getvalue() and "1 👎 without an expected page skipped" in err.getvalue()
    chosen = select(argparse.Namespace(cases=str(out), split="test", set="all", games=None))
    assert [q["id"] for q in chosen] == [case["id"]]  # a --cases file runs whatever its split


def test_the_base_booklet_is_the_gold_when_staff_give_only_a_page(heat):
    disliked(heat, "How many laps?", expected_page=7)
    out = io.StringIO()

    call_command("export_feedback", stdout=out, stderr=io.StringIO())

    [case] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert case["gold"] == [{"booklet": "heat", "page": 7}] and case["lang"] == "en"


def test_the_admin_lists_feedback_and_filters_by_rating(client, alice, heat):
    disliked(heat, "Disliked question", feedback_comment="Wrong page, it is the turn summary")
    QuestionFactory(game=heat, text="Liked question", rating=Question.Rating.UP, feedback_at=timezone.now())
    QuestionFactory(game=heat, text="Unrated question")
    client.force_login(alice)

    listing = client.get("/admin/questions/question/").content.decode()
    assert "Wrong page, it is the turn summary" in listing and "👎" in listing

    down = client.get("/admin/questions/question/?avis=down").content.decode()
    assert "Disliked question" in down and "Liked question" not in down and "Unrated question" not in down
    none = client.get("/admin/questions/question/?avis=none").content.decode()
    assert "Unrated question" in none and "Disliked question" not in none


def test_staff_say_where_the_right_passage_is_then_export_from_the_admin(client, alice, heat):
    ExtensionFactory(game=heat, name="Rain", slug="heat-rain")
    question = disliked(heat, "Does rain slow me down?")
    client.force_login(alice)
    url = f"/admin/questions/question/{question.pk}/change/"

    form = client.get(url).content.decode()
    assert "le bon passage" in form and 'value="heat-rain"' in form

    data = {
        "game": heat.pk, "text": question.text, "history": "[]", "card_mentions": "[]",
        "sticky_card_mentions": "[]", "answer": "…", "diagnostics": "{}", "status": "done", "rating": "-1",
        "expected_booklet": "heat-rain", "expected_page": "3",
    }
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    question.refresh_from_db()
    assert (question.expected_booklet, question.expected_page) == ("heat-rain", 3)

    download = client.post("/admin/questions/question/", {"action": "export_feedback", "_selected_action": [str(question.pk)]})
    assert download["Content-Disposition"].startswith('attachment; filename="feedback-')
    [case] = [json.loads(line) for line in download.content.decode().splitlines()]
    assert case["gold"] == [{"booklet": "heat-rain", "page": 3}]


def test_exporting_disliked_answers_without_a_page_says_what_is_missing(client, alice, heat):
    question = disliked(heat, "Where is the pit lane rule?")
    client.force_login(alice)

    page = client.post(
        "/admin/questions/question/", {"action": "export_feedback", "_selected_action": [str(question.pk)]}, follow=True
    ).content.decode()

    assert "Aucun cas à exporter" in page and "(1 sans page)" in page
