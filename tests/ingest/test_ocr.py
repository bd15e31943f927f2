"""OCR: only pages without a usable text layer are read by tesseract, and a restarted job
resumes from the page cache."""

import json

import pytest

from games.indexing import sync_if_changed
from ingest import services
from ingest.models import IngestJob
from ingest.stages import ocr
from ingest.stages.ocr import OcrSettings, decide_ocr
from ingest.stages.read import Page, Paragraph
from rag.sparse import query_vector
from runtime import components
from tests.ingest.pdfs import mixed_pdf, scanned_pdf

TEXT_PAGE = "Le joueur actif pioche deux cartes au début de son tour puis en joue une. " * 8


def pages_with(*counts):
    return [Page(n, [Paragraph("x" * count, page=n)] if count else []) for n, count in enumerate(counts, start=1)]


@pytest.mark.parametrize(
    ("config", "counts", "outcome", "ocr_pages"),
    [
        (OcrSettings(enabled=False), (0, 0), "disabled", ()),
        (OcrSettings(), (0, 0, 0), "no_text", (1, 2, 3)),
        (OcrSettings(auto_threshold=200), (150, 30, 250), "low_text", (1, 2)),
        (OcrSettings(auto_threshold=200, page_min_chars=40), (900, 5, 900), "sufficient", (2,)),
        (OcrSettings(auto_threshold=200, page_min_chars=40), (900, 900), "sufficient", ()),
    ],
)
def test_decide_ocr_has_four_outcomes_and_picks_the_pages_short_of_text(config, counts, outcome, ocr_pages):
    decision = decide_ocr(pages_with(*counts), config)

    assert (decision.outcome, decision.pages) == (outcome, ocr_pages)


@pytest.mark.slow
@pytest.mark.django_db
def test_scanned_page_is_read_and_its_words_become_searchable(tmp_path):
    scan = ["Le dragon rouge garde le tresor", "du donjon pendant trois tours."]
    pdf = mixed_pdf(tmp_path / "mixed.pdf", [TEXT_PAGE, TEXT_PAGE], scan, tmp_path)

    job = services.create_ingest(pdf_path_or_file=pdf, new_game_name="Donjon")
    services.enqueue(job)
    job.refresh_from_db()

    assert job.status == IngestJob.Status.DONE, job.error
    assert job.stats["ocr"]["outcome"] == "sufficient" and job.stats["ocr"]["pages_ocr"] == 1
    started = [e.data["act"] for e in job.events.filter(event="act") if e.data["state"] == "started"]
    assert "ocr" in started and job.events.filter(event="act", data__label="Reconnaissance optique").exists()
    store = components.vector_store()
    sync_if_changed(store, ["rules_donjon"])
    hit = store.search_sparse("rules_donjon", query_vector("dragon rouge trésor"), limit=1)[0].payload
    page, offset = hit["page_offsets"][-1]
    assert page == hit["page_end"] == 3
    assert hit["text"][offset:].lower().startswith("le dragon rouge garde le tresor")


@pytest.mark.slow
@pytest.mark.django_db
def test_killed_ocr_resumes_from_the_cache_without_redoing_pages(tmp_path, settings, monkeypatch):
    settings.OCR_CONCURRENCY = 1  # pages in order, so "after 4 pages" means pages 1-4
    words = ["alpha", "bravo", "charlie", "delta", "echo"]
    pdf = scanned_pdf(tmp_path / "scan.pdf", [[f"Page {w} du livret", f"mot clef {w}"] for w in words], tmp_path)
    job = services.create_ingest(pdf_path_or_file=pdf, new_game_name="Scan")
    cache_file = settings.INGEST_CACHE_DIR / f"{ocr.CACHE_VERSION}-scan.json"
    real_recognise = ocr.recognise
    calls = []

    def crash_on_fifth_page(image_path, languages):
        if len(calls) == 4:
            # What a SIGKILL would leave: the cache saved every 3 pages.
            assert sorted(json.loads(cache_file.read_text())["pages"]) == ["1", "2", "3"]
            raise RuntimeError("worker killed")
        calls.append(image_path.name)
        return real_recognise(image_path, languages)

    monkeypatch.setattr(ocr, "recognise", crash_on_fifth_page)
    services.enqueue(job)
    job.refresh_from_db()
    assert job.status == IngestJob.Status.ERROR and "Reconnaissance optique" in job.error

    calls.clear()
    monkeypatch.setattr(ocr, "recognise", lambda image, languages: calls.append(image.name) or real_recognise(image, languages))
    assert services.retry(job)
    job.refresh_from_db()

    assert job.status == IngestJob.Status.DONE, job.error
    assert calls == ["page-05.png"]  # pages 1-4 came from the cache
    assert job.stats["ocr"]["from_cache"] == 4
    assert "echo" in " ".join(job.chunks.values_list("text", flat=True)).lower()
