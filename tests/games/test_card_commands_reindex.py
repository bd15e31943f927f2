"""`manage.py reindex --reembed` re-embeds cards and decklists in place: an embedder failing
half-way leaves every row with a vector (new or old) and the index with every point."""

import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from games.card_import import import_cards
from games.card_indexing import card_collection, embed_pending_cards, embed_pending_decklists, meta_collection
from games.decklists import import_decklist
from games.indexing import sync_card_collections
from games.models import Card, Decklist
from rag.embeddings import EmbeddingError
from runtime import components
from tests.card_fixtures import DECKLISTS, SCRYFALL_SAMPLE
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


class FakeEmbedder:
    """Constant vectors under its own name; after `fails_after` calls it fails as the TEI
    client does when its server is down (a two-line message)."""

    dim = 8

    def __init__(self, name: str, fails_after: int | None = None):
        self.name, self.fails_after, self.calls = name, fails_after, 0

    def embed_passages(self, texts):
        if self.fails_after is not None and self.calls >= self.fails_after:
            raise EmbeddingError("embeddings server tei failed: 503 Service Unavailable\nFor more information check: …")
        self.calls += 1
        return np.ones((len(texts), self.dim), np.float32)

    def embed_query(self, text):
        return np.ones(self.dim, np.float32)


@pytest.fixture
def catalogs(tmp_path):
    """Magic with 5 cards and a list, and a game no longer flagged as a card game that kept
    its list: everything embedded by the "old" embedder and indexed."""
    magic = GameFactory(name="Magic", slug="magic", card_game="mtg")
    five = tmp_path / "five.json"
    five.write_text(json.dumps(json.loads(SCRYFALL_SAMPLE.read_text())[:5]))
    import_cards(magic, five)
    import_decklist(magic, DECKLISTS[0])
    former = GameFactory(name="Former", slug="former", card_game="")
    import_decklist(former, DECKLISTS[1])
    old = FakeEmbedder("old")
    for game in (magic, former):
        embed_pending_cards(game, old)
        embed_pending_decklists(game, old)
        sync_card_collections(components.vector_store(), game)
    return magic, former


def test_an_embedder_failing_half_way_keeps_the_old_vectors_and_the_points(catalogs, monkeypatch):
    magic, former = catalogs
    # The cards (one batch) are embedded again, then the embedder fails on the first list.
    monkeypatch.setattr(components, "embedder", lambda: FakeEmbedder("new", fails_after=1))

    with pytest.raises(CommandError) as error:
        call_command("reindex", "--reembed")

    message = str(error.value)
    assert "\n" not in message and "503 Service Unavailable" in message
    assert "run `manage.py reindex --reembed` again" in message
    assert set(Card.objects.values_list("embedder", flat=True)) == {"new"}
    assert not Decklist.objects.filter(dense__isnull=True).exists()  # not reached: old vectors kept
    assert set(Decklist.objects.values_list("embedder", flat=True)) == {"old"}
    store = components.vector_store()
    for game in (magic, former):  # what the web process's next sync does: no point deleted
        sync_card_collections(store, game)
    assert store.count(card_collection(magic)) == Card.objects.count() == 5
    assert store.count(meta_collection(magic)) == store.count(meta_collection(former)) == 1


def test_the_decklists_of_a_game_no_longer_flagged_as_a_card_game_are_embedded_again(catalogs, monkeypatch, capsys):
    magic, former = catalogs
    monkeypatch.setattr(components, "embedder", lambda: FakeEmbedder("new"))

    call_command("reindex", "--reembed")

    assert "7 cards and decklists embedded again." in capsys.readouterr().out
    assert set(Decklist.objects.values_list("embedder", flat=True)) == {"new"}
    assert not Decklist.objects.filter(dense__isnull=True).exists()
    assert components.vector_store().count(meta_collection(former)) == 1
