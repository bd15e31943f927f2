"""End to end through the services and the django-q2 task (run inline under pytest)."""

import pytest

from games.indexing import sync_if_changed
from games.models import Chunk
from ingest import services
from ingest.models import IngestJob
from rag.sparse import query_vector
from runtime import components
from tests.factories import ChunkFactory, GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf
from tests.ingest.running import ingest_inline

pytestmark = pytest.mark.django_db


def search(collection: str, text: str):
    store = components.vector_store()
    sync_if_changed(store, [collection])
    return store.search_sparse(collection, query_vector(text), limit=3)


def test_base_booklet_becomes_cited_searchable_chunks(tmp_path, settings):
    job = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")

    assert job.status == IngestJob.Status.DONE, job.error
    assert not settings.QDRANT_PATH.exists()  # the worker left the local index to the web process
    assert job.stats["pages"] == 2 and job.stats["chunks"] >= 2
    hits = search("rules_heat", "carte Boost limite de vitesse")
    top = hits[0].payload
    assert "Boost" in top["text"]
    assert top["page_start"] == 1
    assert top["hierarchy_path"] == "2. Tour de jeu"
    assert top["contextual_text"] == "Heat / 2. Tour de jeu"
    assert top["booklet_kind"] == "base" and top["is_extension"] is False
    end = Chunk.objects.get(collection="rules_heat", text__contains="ligne d'arrivée")
    assert (end.page_start, end.page_end) == (2, 2)


def test_pdf_is_stored_as_slug_and_timestamp_and_pages_are_rendered_only_when_an_answer_needs_one(tmp_path, settings):
    from rag.answer import best_page_image
    from rag.retrieve import BookletRef, RetrievedChunk
    from runtime import components

    job = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")

    stored = settings.MEDIA_ROOT / job.pdf_path
    assert stored.parent == settings.PDF_DIR and stored.name.startswith("heat-") and stored.suffix == ".pdf"
    assert job.game.pdf.name == job.pdf_path and job.game.pdf_pages == 2
    folder = settings.PAGE_IMAGES_DIR / "heat"
    assert not list(folder.glob("*.png"))  # searchable without a single page image
    ref = BookletRef("rules_heat", "heat", "Heat", "base", folder)
    hit = RetrievedChunk(id="x", booklet=ref, payload={"page_start": 2, "page_end": 2, "text": "…"}, score=1.0, fusion_score=1.0)

    image = best_page_image([hit], renderer=components.page_renderer())

    assert image is not None and image.page == 2 and image.path == folder / "page-02.png"
    assert sorted(p.name for p in folder.glob("*.png")) == ["page-02.png"]


def test_reingesting_a_booklet_replaces_its_chunks(tmp_path):
    first = ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", LOREM_RULES), new_game_name="Heat")
    revised = [(heading, [p.replace("sept", "huit") for p in paragraphs]) for heading, paragraphs in LOREM_RULES]
    second = ingest_inline(rulebook_pdf(tmp_path / "v2.pdf", revised), game=first.game)

    assert second.status == IngestJob.Status.DONE
    rows = Chunk.objects.filter(collection="rules_heat")
    assert set(rows.values_list("ingest_job", flat=True)) == {second.pk}
    hits = search("rules_heat", "distribuez cartes joueur")
    assert "huit" in hits[0].payload["text"] and "sept cartes" not in hits[0].payload["text"]


def test_broken_pdf_fails_its_job_with_an_actionable_message_and_touches_nothing_else(tmp_path, settings):
    other = ChunkFactory(game=GameFactory(name="Azul"), text="Les tuiles restent au centre.")
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "h.pdf", LOREM_RULES), new_game_name="Heat")
    (settings.MEDIA_ROOT / job.pdf_path).write_bytes(b"%PDF-1.4\n garbage without any object\n")

    services.enqueue(job)
    job.refresh_from_db()

    assert job.status == IngestJob.Status.ERROR
    assert "PDF" in job.error and "relancez" in job.error
    assert job.events.last().event == "error"
    assert Chunk.objects.filter(pk=other.pk).exists()
    assert not Chunk.objects.filter(collection="rules_heat").exists()


def test_acts_are_reported_in_order_with_counts(tmp_path):
    job = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")

    acts = [e.data for e in job.events.filter(event="act")]
    started = [a["act"] for a in acts if a["state"] == "started"]
    assert started == ["read", "chunk", "hierarchy", "context", "embed", "index"]  # no OCR needed
    assert acts[0]["label"] == "Lecture"
    embed_done = next(a for a in acts if a["act"] == "embed" and a["state"] == "done")
    assert embed_done["done"] == embed_done["total"] == job.stats["chunks"]
    done = job.events.last()
    assert done.event == "done" and done.data["chunks"] == job.stats["chunks"] and done.data["ocr"] == 0


def test_a_booklet_whose_text_is_not_in_its_declared_language_gets_a_warning(tmp_path):
    english = [("1. Setup", [
        "Each player takes a driver board and puts the speed marker on the zero space of the track. "
        "Shuffle the race cards and deal seven of them to each player.",
        "The first player is the one who drove a car most recently. They take the start token.",
    ])]

    declared_french = ingest_inline(rulebook_pdf(tmp_path / "heat.pdf", english), new_game_name="Heat", language="fr")
    declared_english = ingest_inline(rulebook_pdf(tmp_path / "heat2.pdf", english), new_game_name="Heat 2", language="en")

    assert declared_french.stats["language"] == "en"
    warnings = [e.data["message"] for e in declared_french.events.filter(event="warning")]
    assert any("anglais" in w and "« fr »" in w for w in warnings), warnings
    assert not declared_english.events.filter(event="warning").exists()
