"""Typing @ in the question box offers the game's cards; without a catalog the box still works."""

import json
from urllib.parse import parse_qs

import pytest

from games.models import Card
from questions.models import Question
from tests.e2e.conftest import open_signed_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def add_card(game, name, name_fr=""):
    return Card.objects.create(game=game, key=name.lower(), name=name, name_fr=name_fr,
                               search_name=name.lower(), search_name_fr=name_fr.lower())


@pytest.fixture
def chat_with_cards(browser, live_daphne, course_folle, bob):
    """Bob's chat page of a game whose catalog holds Lightning Bolt and Llanowar Elves."""
    game, _ = course_folle
    add_card(game, "Lightning Bolt", "Foudre")
    add_card(game, "Llanowar Elves", "Elfes de Llanowar")
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")
    return page


def test_at_mention_suggests_cards_and_sends_the_picked_one(chat_with_cards):
    page = chat_with_cards
    page.type("#question", "Peut-on cibler un joueur avec @Light")
    page.locator("#card-suggestions [role=option]", has_text="Lightning Bolt").wait_for()
    screenshot(page, "chat-card-mentions")
    page.keyboard.press("Enter")  # picks the card, does not send the question
    assert page.input_value("#question") == "Peut-on cibler un joueur avec @Lightning Bolt "
    assert page.locator(".turn").count() == 0
    page.type("#question", "?")
    with page.expect_request("**/ask") as request:
        page.click("#ask-button")

    assert sent(request.value)["card_mentions"] == ["Lightning Bolt"]


def test_a_question_refused_once_is_sent_again_with_its_picked_card(chat_with_cards):
    page = chat_with_cards
    refused = []

    def too_many_once(route):
        if refused:
            return route.continue_()
        refused.append(route.request)
        route.fulfill(status=429, content_type="text/plain; charset=utf-8", body="Trop de questions d'un coup.")

    page.route("**/ask", too_many_once)
    page.type("#question", "Peut-on cibler un joueur avec @Light")
    page.locator("#card-suggestions [role=option]", has_text="Lightning Bolt").wait_for()
    page.keyboard.press("Enter")
    page.click("#ask-button")
    page.locator("#ask-error", has_text="Trop de questions").wait_for()
    assert page.input_value("#question") == "Peut-on cibler un joueur avec @Lightning Bolt "  # kept to send again
    with page.expect_request("**/ask") as again:
        page.click("#ask-button")

    assert sent(refused[0])["card_mentions"] == ["Lightning Bolt"]
    assert sent(again.value)["card_mentions"] == ["Lightning Bolt"]


def test_at_mention_without_a_card_catalog_keeps_the_box_working(browser, live_daphne, course_folle, bob):
    game, _ = course_folle
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{game.slug}/")

    page.type("#question", "Que fait @Boost")
    page.locator("#card-suggestions .no-cards", has_text="Aucune carte trouvée").wait_for()
    page.keyboard.press("Escape")
    with page.expect_request("**/ask") as request:
        page.click("#ask-button")

    body = sent(request.value)
    assert body["question"] == "Que fait @Boost" and body["card_mentions"] == []


def sent(request) -> dict:
    """The question form as the chat posted it (card_mentions: a JSON list)."""
    fields = {name: values[-1] for name, values in parse_qs(request.post_data).items()}
    fields["card_mentions"] = json.loads(fields.get("card_mentions", "[]"))
    return fields


def ask_in_page(page, text: str, pick: str | None = None) -> Question:
    """Type a question (picking the @-suggested card `pick`), send it, wait for its answer;
    returns the stored question."""
    page.type("#question", text)
    if pick:
        page.locator("#card-suggestions [role=option]", has_text=pick).wait_for()
        page.keyboard.press("Enter")
    done = page.locator(".turn[data-state=done]").count()
    page.click("#ask-button")
    page.locator(".turn[data-state=done]").nth(done).wait_for(timeout=60_000)
    return Question.objects.order_by("-created_at").first()


def test_cards_mentioned_earlier_are_sent_back_on_the_next_turns(chat_with_cards):
    """Issue 18: a card @-mentioned in turn 1 is still in the conversation in turns 2 and 3."""
    page = chat_with_cards
    first = ask_in_page(page, "Que fait @Light", pick="Lightning Bolt")
    second = ask_in_page(page, "Et avec @Llan", pick="Llanowar Elves")
    third = ask_in_page(page, "Laquelle choisir ?")

    assert first.sticky_card_mentions == [] and first.card_mentions == ["Lightning Bolt"]
    assert second.conversation_id == first.conversation_id == third.conversation_id
    assert second.sticky_card_mentions == ["Lightning Bolt"] and second.card_mentions == ["Llanowar Elves"]
    assert third.sticky_card_mentions == ["Lightning Bolt", "Llanowar Elves"]
