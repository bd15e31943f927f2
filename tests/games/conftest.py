"""Fixtures shared by the card API tests: the Dominaria catalog and a signed-in player."""

import pytest
from django.test import Client

from games.card_import import import_cards
from tests.card_fixtures import DOMINARIA
from tests.factories import GameFactory


@pytest.fixture
def magic_catalog(db):
    game = GameFactory(name="Magic", slug="magic", card_game="mtg")
    import_cards(game, DOMINARIA)
    return game


@pytest.fixture
def client_bob(bob):
    client = Client()
    client.force_login(bob)
    return client
