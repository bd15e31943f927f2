"""The demo game « Les Aéronautes » with its English expansion Storm Front, asked as a player
would — through the HTTP API and in a real Chromium on the chat page — with every booklet
searched by default: the expansion's rule that changes the base leads the answer and says
so, in French and in English, and a follow-up is answered about the previous question."""

import re
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from questions.models import ApiToken
from tests.e2e.conftest import open_signed_in, screenshot
from tests.factories import UserFactory
from tests.ingest.running import ingest_inline
from tests.questions.sse_client import iter_events

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DEMO = Path(settings.BASE_DIR) / "games" / "demo"
CITATION = re.compile(r'\[(?P<booklet>[^\[\],]+), p\.(?P<page>\d+) : "')
PHOTO_FR = "Peut-on photographier une Merveille depuis la couche haute ?"
PHOTO_EN = "Can you photograph a Wonder from the high layer?"
STORM_FR = "Que se passe-t-il quand un ballon entre dans une tempête ?"
STORM_EN = "What happens when a balloon enters a storm?"
FOLLOW_UP = "Et avec l'extension Storm Front ?"


@pytest.fixture
def demo(transactional_db):
    base = ingest_inline(DEMO / "les-aeronautes-regles.pdf", new_game_name="Les Aéronautes")
    storm = ingest_inline(DEMO / "les-aeronautes-storm-front.pdf", game=base.game, kind="extension",
                          name="Storm Front", language="en")  # fmt: skip
    return base.game, storm.extension


def ask_api(base_url, key, game, question, history=()):
    """The whole answer of one question asked without `extensions`: every booklet."""
    body = {"gameId": str(game.pk), "question": question, "history": list(history)}
    with httpx.stream("POST", f"{base_url}/api/ask/stream", json=body, timeout=120,
                      headers={"Authorization": f"Bearer {key}"}) as response:  # fmt: skip
        assert response.status_code == 200
        done = [e for e in iter_events(response) if e.name == "done"]
    return done[0].data["fullAnswer"]


def first_citation(answer: str) -> tuple[str, int]:
    match = CITATION.search(answer)
    return match["booklet"], int(match["page"])


def test_storm_front_changes_lead_the_answers_through_the_api_and_in_the_browser(browser, live_daphne, demo, bob):
    game, storm = demo
    _, key = ApiToken.issue(UserFactory(username="carol"), "tests")

    answer = ask_api(live_daphne, key, game, PHOTO_FR)
    assert answer.startswith("Storm Front modifie cette règle"), answer
    assert first_citation(answer) == ("Storm Front", 3)
    answer = ask_api(live_daphne, key, game, PHOTO_EN)
    assert answer.startswith("Storm Front changes this rule"), answer
    assert first_citation(answer) == ("Storm Front", 3)
    for question in (STORM_FR, STORM_EN):
        booklet, page = first_citation(ask_api(live_daphne, key, game, question))
        # the expansion leads, on its storm rules (pp.2–3) or its icon legend (p.4: « A Storm
        # hex. A balloon entering it stops and is struck by lightning »), never the base game
        assert booklet == "Storm Front" and page in (2, 3, 4), question
    follow_up = ask_api(live_daphne, key, game, FOLLOW_UP, [{"question": PHOTO_FR, "answer": ""}])
    assert first_citation(follow_up) == ("Storm Front", 3) and "photograph" in follow_up

    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")  # no ?ext=: every booklet ticked
    assert page.is_checked(f"input[name=booklet][value='{storm.pk}']")
    ask(page, PHOTO_FR)
    assert first_link(page, 1).startswith("Storm Front, p.3")
    ask(page, FOLLOW_UP)
    assert first_link(page, 2).startswith("Storm Front, p.3")
    screenshot(page, "chat-storm-front-first")

    with page.expect_response("**/booklets"):
        page.uncheck(f"input[name=booklet][value='{storm.pk}']")
    page.reload()  # the conversation keeps the player's choice
    assert not page.is_checked(f"input[name=booklet][value='{storm.pk}']")
    ask(page, PHOTO_FR)
    assert "Storm Front" not in page.locator(".turn").nth(2).locator(".answer").inner_text()


def ask(page, question):
    done = page.locator(".turn[data-state=done]").count()
    page.fill("#question", question)
    page.click("#ask-button")
    page.locator(".turn[data-state=done]").nth(done).wait_for(timeout=120_000)


def first_link(page, turn_number: int) -> str:
    return page.locator(".turn").nth(turn_number - 1).locator("a.citation").first.inner_text().strip()
