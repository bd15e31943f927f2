"""A deckbuilding answer in the chat shows its validation badge and the export buttons
(real daphne, real Chromium, the Dominaria catalog, no LLM: the offline builder)."""

import pytest

from games.card_indexing import embed_pending_cards
from games.card_catalog import import_cards
from games.models import Game
from tests.card_fixtures import DOMINARIA, card_embedder  # noqa: F401
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
    assert page.locator(".deck-export", has_text="Télécharger .dek (MTGO)").count() == 1
    with page.expect_download() as download:
        page.click(".deck-export >> text=Télécharger .dek (MTGO)")
    assert download.value.suggested_filename == "oracle-deck.dek"
    assert "Forest" in page.locator(".turn .answer").inner_text()
    screenshot(page, "chat-deckbuilding-badge")
