"""The API's actors as a REST client meets them: a visitor without credentials, bob the player
and alice the admin, each by Bearer token; and a game with two ingested booklets."""

import pytest
from django.test import Client

from questions.models import ApiToken
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf
from tests.ingest.running import ingest_inline

EXPANSION_RULES = [
    (
        "1. Pluie",
        [
            "Quand il pleut, chaque joueur réduit sa vitesse maximale de deux dans les virages. "
            "La carte Météo indique le temps de la manche.",
            # A page of text (over OCR's 200 characters a page): the booklet is read from its
            # text layer, as the base rules are, with no OCR pass in every test that uses it.
            "On retourne la carte Météo au début de chaque manche, avant le premier tour de course ; "
            "elle reste visible de tous jusqu'à la manche suivante.",
        ],
    ),
]


class TokenClient(Client):
    """A REST client: every request carries `Authorization: Bearer <key>`."""

    def __init__(self, key: str, **kwargs):
        super().__init__(headers={"Authorization": f"Bearer {key}"}, **kwargs)


@pytest.fixture
def visitor():
    return Client()


@pytest.fixture
def player(bob):
    return TokenClient(ApiToken.issue(bob)[1])


@pytest.fixture
def admin(alice):
    return TokenClient(ApiToken.issue(alice)[1])


@pytest.fixture
def heat(db, tmp_path):
    """Heat: its base rules (French) and an expansion, both read to the end."""
    base = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat", language="fr")
    ingest_inline(rulebook_pdf(tmp_path / "pluie.pdf", EXPANSION_RULES), game=base.game, kind="extension", name="Pluie", language="fr")
    base.game.refresh_from_db()
    return base.game


@pytest.fixture
def store():
    """The vector store of this process, brought up to date from the rows."""
    from games.indexing import sync_if_changed
    from runtime import components

    vectors = components.vector_store()
    sync_if_changed(vectors)
    return vectors
