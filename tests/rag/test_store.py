"""The embedded vector store on both engines (`QDRANT_EMBEDDED_ENGINE`: Qdrant Edge, the
default, and qdrant-client's local mode): same interface, same answers, kept on disk, the
card paths' payload filters, one owning process per folder, and the ask flow syncs
it from the rows."""

import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

from questions.models import Question
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from rag.deckbuilding.pool import _structural_filter, eligible_pool, fetch_inspiration_decklists
from rag.deckbuilding.spec import DeckSpec
from rag.retrieve import retrieve
from rag.sparse import document_vector, query_vector
from rag.store import Point, VectorStoreError, open_store
from rag.synergy import Decomposition, card_filter
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import BASE, EXPANSION, embedder, memory_store, pages_of, payload

BASE_DIR = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["edge", "local"])
def engine(request):
    return request.param


def pid(n: int) -> str:
    return f"00000000-0000-0000-0000-{n:012d}"


def test_points_survive_a_reopen_and_deletes_and_filters_work(tmp_path, engine):
    store = open_store(path=tmp_path, engine=engine)
    assert store.description.startswith("edge" if engine == "edge" else "local")
    store.ensure_collection("rules_x", 4)
    points = [Point(pid(n), np.eye(4)[n], document_vector(text), {"text": text, "n": n})
              for n, text in enumerate(["pioche deux cartes", "rain tyres in wet corners", "fin de partie"])]
    assert store.upsert("rules_x", points) == 3
    store.delete("rules_x", [points[0].id])
    store.close()

    reopened = open_store(path=tmp_path, engine=engine)
    assert reopened.collections() == ["rules_x"] and reopened.count("rules_x") == 2
    assert reopened.has_collection("rules_x") and not reopened.has_collection("rules_y")
    assert reopened.point_ids("rules_x") == {pid(1), pid(2)}
    assert reopened.ping() >= 0
    hits = reopened.search_sparse("rules_x", query_vector("rain tyres"), 5)
    assert [(h.id, h.payload["n"], h.collection) for h in hits] == [(pid(1), 1, "rules_x")]
    assert [h.payload["n"] for h in reopened.search_dense("rules_x", np.eye(4)[2], 5, filter={"n": [2]})] == [2]
    assert [h.payload["n"] for h in reopened.search_dense("rules_x", np.eye(4)[2], 5, filter={"!n": 2})] == [1]
    record = next(iter(reopened.scroll("rules_x", filter={"n": 1}, with_vectors=True)))
    assert record.id == pid(1) and record.payload["text"] == "rain tyres in wet corners"
    assert record.vector["dense"] == pytest.approx([0, 1, 0, 0]) and list(record.vector["bm25"].indices)
    assert reopened.search_dense("rules_missing", np.eye(4)[0]) == [] and reopened.count("rules_missing") == 0
    assert list(reopened.scroll("rules_missing")) == []
    with pytest.raises(VectorStoreError, match="reindex needed"):
        reopened.ensure_collection("rules_x", 8)
    reopened.drop("rules_x")
    assert reopened.collections() == [] and reopened.count("rules_x") == 0
    reopened.close()


CARDS = [  # name, rules text, payload
    ("Llanowar Elves", "Tap: add one green mana.",
     {"card_mtg_color_identity": ["G"], "card_mtg_legal_formats": ["standard", "modern"], "card_types": ["creature"], "set": "dom"}),
    ("Saproling Migration", "Create two 1/1 green Saproling creature tokens.",
     {"card_mtg_color_identity": ["G"], "card_mtg_legal_formats": ["modern"], "card_types": ["sorcery"], "set": "dom"}),
    ("Lightning Bolt", "Lightning Bolt deals 3 damage to any target.",
     {"card_mtg_color_identity": ["R"], "card_mtg_legal_formats": ["modern"], "card_types": ["instant"], "set": "m10"}),
    ("Golos", "Golos searches for a land card when it enters.",
     {"card_mtg_color_identity": [], "card_mtg_legal_formats": ["standard", "modern"], "card_types": ["creature"], "set": "m20"}),
    ("Selesnya Charm", "Exile target creature with power 5 or greater; create a 2/2 Knight token.",
     {"card_mtg_color_identity": ["G", "W"], "card_mtg_legal_formats": ["modern"], "card_types": ["instant"], "set": "rtr"}),
]
DECKS = [
    ("Modern Elves", {"kind": "meta", "meta_type": "tournament_deck", "meta_format": "modern"}),
    ("Standard Golos", {"kind": "meta", "meta_type": "tournament_deck", "meta_format": "standard"}),
    ("Modern primer article", {"kind": "meta", "meta_type": "article", "meta_format": "modern"}),
]


@pytest.fixture
def card_store(tmp_path, engine):
    store = open_store(path=tmp_path, engine=engine)
    model = embedder()
    items = [(f"{name}. {text}", {"card_name": name, "kind": "card", **extra}) for name, text, extra in CARDS]
    items += [(name, {"card_name": name, **extra}) for name, extra in DECKS]
    store.ensure_collection("cards_x", model.dim)
    vectors = model.embed_passages([text for text, _ in items])
    store.upsert("cards_x", [Point(pid(n), vec, document_vector(text), meta)
                             for n, ((text, meta), vec) in enumerate(zip(items, vectors))])
    yield store
    store.close()


def names(records) -> set[str]:
    return {r.payload["card_name"] for r in records}


def test_card_filters_select_the_same_cards_on_both_engines(card_store):
    mono_green = card_filter(Decomposition(colors=("G",), format="standard"), "mtg")  # must + must_not MatchAny
    assert names(card_store.scroll("cards_x", filter=mono_green)) == {"Llanowar Elves", "Golos"}
    typed = card_filter(Decomposition(colors=("G", "W"), types=("instant",), sets=("rtr", "dom")), "mtg", with_types=True)
    assert names(card_store.scroll("cards_x", filter=typed)) == {"Selesnya Charm"}
    hits = card_store.search_sparse("cards_x", query_vector("green creature tokens"), 10, filter=mono_green)
    assert names(hits) == {"Llanowar Elves"}  # Saproling Migration matches more words but is not Standard
    dense = card_store.search_dense("cards_x", embedder().embed_query("green mana"), 10, filter=mono_green)
    assert names(dense) == {"Llanowar Elves", "Golos"}

    spec = DeckSpec(game="mtg", format="standard", colors=["G"], main=60, max_copies=4)
    assert _structural_filter(spec) is not None
    assert {c["card_name"] for c in eligible_pool(card_store, "cards_x", spec)} == {"Llanowar Elves", "Golos"}
    spec = DeckSpec(game="mtg", format="modern", main=60, max_copies=4)
    decks = fetch_inspiration_decklists(card_store, embedder(), "cards_x", "elves", spec)
    assert [d["card_name"] for d in decks] == ["Modern Elves"]


HOLD = """
import sys
from rag.store import open_store, VectorStoreError
try:
    open_store(path=sys.argv[1], engine=sys.argv[2])
except VectorStoreError as exc:
    print("refused:", exc)
else:
    print("opened")
"""


def test_a_second_process_is_refused_the_folder_and_the_owner_keeps_working(tmp_path, engine):
    """One process owns an embedded folder (the web server; a command run meanwhile leaves the
    indexing to it). For Edge this matters beyond locking: a second process merely loading a
    shard held elsewhere would break the owner's next write."""
    owner = open_store(path=tmp_path, engine=engine)
    owner.ensure_collection("rules_x", 4)
    owner.upsert("rules_x", [Point(pid(1), np.eye(4)[0], document_vector("pioche deux cartes"), {"n": 1})])

    other = subprocess.run([sys.executable, "-c", HOLD, str(tmp_path), engine],
                           cwd=BASE_DIR, capture_output=True, text=True, timeout=120)
    assert other.stdout.startswith("refused:") and "in use by another process" in other.stdout, other.stdout + other.stderr

    owner.upsert("rules_x", [Point(pid(2), np.eye(4)[1], document_vector("fin de partie"), {"n": 2})])
    assert owner.count("rules_x") == 2
    assert [h.payload["n"] for h in owner.search_sparse("rules_x", query_vector("fin de partie"))] == [2]
    owner.close()
    reopened = open_store(path=tmp_path, engine=engine)  # the lock goes with the owner
    assert reopened.count("rules_x") == 2
    reopened.close()


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
    edge.close()


def test_the_embedded_default_starts_without_loading_qdrant_client(tmp_path):
    """qdrant-client takes ~0.9 s to import; on the embedded default every process start
    (daphne, the worker, each command) paid it for a library it never calls."""
    code = (
        "import sys, django; django.setup()\n"
        "import oracle_site.urls, rag.synergy, rag.deckbuilding.pool\n"
        "from runtime import components\n"
        "store = components.vector_store(); store.ensure_collection('rules_x', 4)\n"
        "store.search_dense('rules_x', [1, 0, 0, 0], 5, filter={'!n': [2]})\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith('qdrant')}))\n"
    )
    env = {"DJANGO_SETTINGS_MODULE": "oracle_site.settings", "DEBUG": "true", "QDRANT_PATH": str(tmp_path),
           "ORACLE_VAR_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}  # fmt: skip
    result = subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['qdrant_edge']"  # the engine it uses, and nothing of the client


@pytest.mark.django_db
def test_the_ask_flow_indexes_rows_into_the_store_and_answers(settings, engine):
    from runtime import components
    from tests.rag.corpus import create_chunk_rows

    settings.QDRANT_EMBEDDED_ENGINE = engine
    components.reset_vector_store()
    game = GameFactory(name="Course Folle", slug="course-folle")
    extension = ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain")
    create_chunk_rows(game, extension)
    question = create_question(game=game, text="Which tyres can a player choose before the race?", extensions=[extension])
    answer_question(question.pk, lambda *event: None)
    question.refresh_from_db()
    assert question.status == Question.Status.DONE
    assert '[Heavy Rain, p.2 : "' in question.answer
    assert components.vector_store().description.split()[0] == engine
