"""A 👎 becomes an evaluation case, in the browser: a player rates an answer 👎 with a
comment; staff open it in the admin, say where the right passage is, select it in the list
and run « Exporter les 👎 en cas d'évaluation (JSONL) »: the downloaded file holds the case
(real daphne, real Chromium, the offline answer)."""

import json

import pytest

from questions.models import Question
from tests.e2e.conftest import open_signed_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
QUESTION = "Combien de cartes pioche le joueur actif ?"
COMMENT = "La règle est dans Heavy Rain, page 2."


def rate_down_with_comment(page):
    page.fill("#question", QUESTION)
    page.click("#ask-button")
    page.wait_for_selector(".turn[data-state=done]", timeout=60_000)
    page.click(".turn .rate-down")
    page.wait_for_selector(".turn .feedback .rate-down[aria-pressed=true]")
    page.click(".turn .feedback-comment summary")
    page.fill(".turn .feedback textarea", COMMENT)
    with page.expect_response(lambda response: response.request.method == "POST" and "/feedback" in response.url):
        page.click(".turn .send-comment")


def test_staff_export_a_players_thumbs_down_as_an_evaluation_case(browser, live_daphne, course_folle, bob, alice):
    game, extension = course_folle
    player = open_signed_in(browser, live_daphne, bob)
    player.goto(f"/jeux/{game.slug}/")
    rate_down_with_comment(player)
    question = Question.objects.get()
    assert question.rating == -1 and question.feedback_comment == COMMENT

    staff = open_signed_in(browser, live_daphne, alice)
    staff.goto("/admin/questions/question/?avis=down")
    staff.click(f"a:has-text('{QUESTION}')")
    staff.select_option("select[name=expected_booklet]", extension.slug)
    staff.fill("input[name=expected_page]", "2")
    staff.click("input[name=_save]")
    staff.wait_for_selector(".messagelist .success")
    staff.goto("/admin/questions/question/?avis=down")
    staff.check("input.action-select")
    staff.select_option("select[name=action]", "export_feedback")
    with staff.expect_download() as download:
        staff.click("button[name=index]")

    assert download.value.suggested_filename.startswith("feedback-") and download.value.suggested_filename.endswith(".jsonl")
    [case] = [json.loads(line) for line in open(download.value.path(), encoding="utf-8").read().splitlines()]
    assert case["question"] == QUESTION and case["game"] == game.slug
    assert case["gold"] == [{"booklet": extension.slug, "page": 2}]
    assert case["notes"] == COMMENT and case["kind"] == "feedback"
