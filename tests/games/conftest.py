"""Fixtures shared by the card API tests: a signed-in player (the Dominaria catalog,
`magic_catalog`, is in tests/card_fixtures.py)."""

import pytest
from django.test import Client


@pytest.fixture
def client_bob(bob):
    client = Client()
    client.force_login(bob)
    return client
