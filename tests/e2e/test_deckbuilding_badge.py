"""A deckbuilding answer in the chat shows its validation badge and the export buttons, live
and again after a reload (real daphne, real Chromium, the Dominaria catalog, no LLM: the
offline builder)."""

import pytest

from games.card_import import import_cards
from games.card_indexing import embed_pending_cards
from games.models import Game
from questions.models import Question
from tests.card_fixtures import DOMINARIA  # noqa: F401
from tests.e2e.conftest import open_signed_in, screenshot
from tests.factories import GameFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def magic_rows(transactional_db, card_embedder):
    """Card rows with their vectors; the server (owner of the local index) indexes them."""
    game = GameFactory(name="Magic", slug="magic", card_game=Game.CardGame.MTG)
    import_cards(game, DOMINARIA)
    embed_pending_cards(game, card_embedder)
    return game


def test_deck_answer_shows_a_valid_badge_and_exports(browser, magic_rows, live_daphne, bob):
    page = open_signed_in(browser, live_daphne, bob)
    page.goto(f"/jeux/{magic_rows.slug}/")
    page.fill("#question", "Construis-moi une decklist complète Standard verte avec sideboard")
    page.click("#ask-button")

    badge = page.locator(".deck-badge")
    badge.wait_for(timeout=120_000)
    assert badge.inner_text() == "Liste valide (60 + 15)"
    assert "valid" in badge.get_attribute("class").split()
    assert page.locator(".deck-export", has_text="Copier pour Arena").count() == 1
    assert "Forest" in page.locator(".turn .answer").inner_text()
    screenshot(page, "chat-deckbuilding-badge")
    stored = Question.objects.get().diagnostics["deck"]["exports"]
    assert_exports_work(page, stored)

    page.reload()  # the conversation's own URL: the stored answer, rendered by the server

    assert page.locator(".turn[data-state=done] .deck-badge").inner_text() == "Liste valide (60 + 15)"
    assert_exports_work(page, stored)


def assert_exports_work(page, stored):
    """The .dek download and the Arena and text copies give the lists the answer built."""
    with page.expect_download() as download:
        page.click(".deck-export >> text=Télécharger .dek (MTGO)")
    assert download.value.suggested_filename == "oracle-deck.dek"
    dek = open(download.value.path(), encoding="utf-8").read()
    assert dek == stored["mtgo_dek"] and '<Cards CatID=' in dek and 'Name="Forest"' in dek
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click(".deck-export >> text=Copier pour Arena")
    page.wait_for_selector(".deck-export:has-text('Copié !')")
    arena = page.evaluate("navigator.clipboard.readText()")
    assert arena == stored["arena"] and arena.startswith("Deck\n") and "\nSideboard\n" in arena
    page.click(".deck-export >> text=Copier la liste (texte)")
    page.wait_for_function("expected => navigator.clipboard.readText().then(text => text === expected)", arg=stored["text"])
    assert "\nSideboard\n" in stored["text"] and "Forest" in stored["text"]
