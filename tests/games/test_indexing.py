import io
import shutil

import pytest
from django.core.management import call_command

from games.index_state import mark_changed
from games.indexing import sync_if_changed
from games.models import Chunk
from rag.sparse import document_vector, query_vector
from runtime import components
from tests.factories import ChunkFactory, GameFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True, params=["edge", "local"])
def engine(request, settings):
    """Every sync behaviour on both embedded engines."""
    settings.QDRANT_EMBEDDED_ENGINE = request.param
    components.reset_vector_store()
    return request.param


def _embedded_chunk(game, text, **fields):
    chunk = ChunkFactory.build(game=game, text=text, **fields)
    chunk.collection = f"rules_{game.slug}"
    chunk.dense_vector = components.embedder().embed_passages([text])[0]
    chunk.embedder = components.embedder().name
    chunk.sparse = document_vector(text).as_dict()
    chunk.save()
    mark_changed(chunk.collection)
    return chunk


def _search(collection, question):
    store = components.vector_store()
    sync_if_changed(store)
    return store.search_sparse(collection, query_vector(question), limit=5)


def test_rows_written_by_a_worker_become_searchable_after_sync():
    game = GameFactory(slug="heat")
    _embedded_chunk(game, "Le joueur actif pioche deux cartes au début de son tour.")
    _embedded_chunk(game, "La partie se termine quand un joueur franchit la ligne d'arrivée.")
    hits = _search("rules_heat", "Quand la partie se termine-t-elle ?")
    assert "ligne d'arrivée" in hits[0].payload["text"]
    assert Chunk.objects.filter(indexed=False).count() == 0


def test_deleting_rows_removes_their_points_from_the_index():
    game = GameFactory(slug="heat")
    kept = _embedded_chunk(game, "Chaque joueur reçoit cinq cartes.")
    gone = _embedded_chunk(game, "Les cartes Boost se défaussent après usage.")
    _search("rules_heat", "cartes")
    gone.delete()
    mark_changed("rules_heat")
    hits = _search("rules_heat", "cartes Boost")
    assert [h.id for h in hits] == [str(kept.pk)]


def test_reindex_rebuilds_every_collection_after_the_qdrant_folder_is_lost(settings):
    game = GameFactory(slug="heat")
    _embedded_chunk(game, "Un virage se prend à la vitesse indiquée sur la plaque.")
    _embedded_chunk(game, "La partie se termine quand un joueur franchit la ligne d'arrivée.")
    _search("rules_heat", "virage")
    components.reset_vector_store()
    shutil.rmtree(settings.QDRANT_PATH)

    out = io.StringIO()
    call_command("reindex", stdout=out)

    assert out.getvalue().count("rules_heat: 2 points") == 1  # each collection rebuilt once
    hits = components.vector_store().search_sparse("rules_heat", query_vector("virage vitesse"))
    assert len(hits) == 1 and "plaque" in hits[0].payload["text"]
