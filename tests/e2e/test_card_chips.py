"""Card names in an answer become chips; hovering, clicking or pressing Enter on one shows the
card (real daphne, real Chromium; the LLM double streams an answer naming two catalog cards)."""

import pytest

from games.models import Card, Game
from tests.e2e.conftest import SERVER_ENV, open_signed_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ANSWER = "Oui : Lightning Bolt peut cibler un joueur, et Llanowar Elves ne change rien."
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.violatedDirective));
"""


@pytest.fixture
def live_daphne_asgi():
    return "tests.support.replay_asgi:application"


@pytest.fixture
def live_daphne_env():
    return {**SERVER_ENV, "REPLAY_LLM_TEXT": ANSWER}


@pytest.fixture
def card_game(course_folle):
    game, _ = course_folle
    game.card_game = Game.CardGame.MTG
    game.save(update_fields=["card_game"])
    for name, name_fr, cost, type_line, text, text_fr in [
        ("Lightning Bolt", "Foudre", "{R}", "Instant", "Lightning Bolt deals 3 damage to any target.",
         "La Foudre inflige 3 blessures à n'importe quelle cible."),
        ("Llanowar Elves", "", "{G}", "Creature — Elf Druid",
         '<img src=x onerror="document.body.dataset.pwned=1">{T}: Add {G}.', ""),
    ]:
        Card.objects.create(game=game, key=name.lower(), name=name, name_fr=name_fr, search_name=name.lower(),
                            search_name_fr=name_fr.lower(), cost=cost, type_line=type_line, text=text, text_fr=text_fr)
    return game


def test_clicking_a_card_chip_shows_the_card(browser, live_daphne, card_game, bob):
    page = open_signed_in(browser, live_daphne, bob)
    page.context.add_init_script(RECORD_VIOLATIONS)
    page.goto(f"/jeux/{card_game.slug}/")
    page.fill("#question", "Peut-on cibler un joueur avec la Foudre ?")
    page.click("#ask-button")
    page.wait_for_selector(".turn[data-state=done]", timeout=60_000)
    chip = page.locator(".turn .answer .card-chip", has_text="Lightning Bolt")
    popover = page.locator("#card-popover")
    assert popover.is_hidden()

    chip.click()
    page.wait_for_selector("#card-popover[data-card='Lightning Bolt']")
    assert popover.locator(".card-popover-name").inner_text() == "Lightning Bolt"
    assert popover.locator(".card-popover-fr").inner_text() == "En français : Foudre"
    assert popover.locator(".card-popover-type").inner_text() == "Instant"
    assert popover.locator(".card-popover-cost").inner_text() == "{R}"
    assert popover.locator(".card-popover-text").inner_text() == "La Foudre inflige 3 blessures à n'importe quelle cible."
    assert chip.get_attribute("aria-expanded") == "true"
    screenshot(page, "chat-card-chip")

    page.keyboard.press("Escape")
    popover.wait_for(state="hidden")
    assert chip.get_attribute("aria-expanded") == "false"
    assert page.evaluate("window.__cspViolations") == []  # the popover runs under the site's CSP


def test_keyboard_and_hover_open_the_card_and_its_text_stays_text(browser, live_daphne, card_game, bob):
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{card_game.slug}/")
    page.fill("#question", "Et les elfes ?")
    page.click("#ask-button")
    page.wait_for_selector(".turn[data-state=done]", timeout=60_000)
    popover = page.locator("#card-popover")
    elves = page.locator(".turn .answer .card-chip", has_text="Llanowar Elves")

    elves.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#card-popover[data-card='Llanowar Elves']")
    text = popover.locator(".card-popover-text").inner_text()
    assert text.startswith('<img src=x onerror="document.body.dataset.pwned=1">')
    assert popover.locator("img").count() == 0
    assert page.evaluate("document.body.dataset.pwned") is None
    assert popover.locator(".card-popover-fr").is_hidden()  # no French name known
    page.keyboard.press("Escape")
    popover.wait_for(state="hidden")
    assert page.evaluate("document.activeElement.dataset.card") == "Llanowar Elves"  # focus back on the chip

    page.locator(".turn .answer .card-chip", has_text="Lightning Bolt").hover()
    page.wait_for_selector("#card-popover[data-card='Lightning Bolt']")
    page.mouse.move(5, 5)
    popover.wait_for(state="hidden")
