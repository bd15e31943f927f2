"""Qdrant Edge as the embedded store (QDRANT_EMBEDDED_ENGINE=edge): same interface, same
answers as local mode, kept on disk, and the ask flow syncs it from the rows."""

import uuid

import numpy as np
import pytest

from questions.models import Question
from questions.services import answer_question, create_question
from rag.retrieve import retrieve
from rag.sparse import document_vector, query_vector
from rag.store import Point, open_store
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import BASE, EXPANSION, embedder, memory_store, pages_of, payload


def test_points_survive_a_reopen_and_deletes_and_filters_work(tmp_path):
    store = open_store(path=tmp_path, engine="edge")
    store.ensure_collection("rules_x", 4)
    points = [Point(f"00000000-0000-0000-0000-00000000000{n}", np.eye(4)[n], document_vector(text), {"text": text, "n": n})
              for n, text in enumerate(["pioche deux cartes", "rain tyres in wet corners", "fin de partie"])]
    store.upsert("rules_x", points)
    store.delete("rules_x", [points[0].id])
    store.close()
    reopened = open_store(path=tmp_path, engine="edge")
    assert reopened.collections() == ["rules_x"] and reopened.count("rules_x") == 2
    assert [h.payload["n"] for h in reopened.search_sparse("rules_x", query_vector("rain tyres"), 5)] == [1]
    assert [h.payload["n"] for h in reopened.search_dense("rules_x", np.eye(4)[2], 5, filter={"n": [2]})] == [2]
    with pytest.raises(Exception, match="reindex needed"):
        reopened.ensure_collection("rules_x", 8)
    reopened.drop("rules_x")
    assert reopened.collections() == []


def test_edge_and_local_mode_rank_the_same_chunks_first(tmp_path):
    local = memory_store()
    edge = open_store(path=tmp_path, engine="edge")
    model = embedder()
    for booklet in (BASE, EXPANSION):
        texts = list(pages_of(booklet).values())
        edge.ensure_collection(booklet.collection, model.dim)
        edge.upsert(booklet.collection, [
            Point(str(uuid.uuid5(uuid.NAMESPACE_URL, f"{booklet.slug}/{page}")), vec, document_vector(text),
                  payload(booklet, page, text))
            for n, ((page, text), vec) in enumerate(zip(pages_of(booklet).items(), model.embed_passages(texts)))
        ])
    for question in ("Quels pneus peut-on choisir avant la course ?", "Comment gagne-t-on la partie ?"):
        tops = [retrieve(question, store=s, embedder=model, booklets=[BASE, EXPANSION]).chunks[0] for s in (local, edge)]
        assert tops[0].payload["chunk_id"] == tops[1].payload["chunk_id"]


@pytest.mark.django_db
def test_the_ask_flow_indexes_rows_into_edge_and_answers(settings):
    from oracle_site import components
    from tests.rag.corpus import create_chunk_rows

    settings.QDRANT_EMBEDDED_ENGINE = "edge"
    components.reset_vector_store()
    game = GameFactory(name="Course Folle", slug="course-folle")
    extension = ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain")
    create_chunk_rows(game, extension)
    question = create_question(game=game, text="Which tyres can a player choose before the race?", extensions=[extension])
    answer_question(question.pk, lambda *event: None)
    question.refresh_from_db()
    assert question.status == Question.Status.DONE
    assert '[Heavy Rain, p.2 : "' in question.answer
    assert components.vector_store().description.startswith("edge")
