"""Issue 28, defect 1: a booklet's new PDF was served as soon as it was uploaded (answers cited
the old chunks' pages in the new file) and stayed the booklet's PDF when its job failed (a
decompression bomb served to every player). Now the PDF, chunks, page images and language
change together when the job succeeds, and not at all when it fails or is cancelled."""

import re

import pytest
from django.test import Client
from pdfminer.high_level import extract_text

from games.models import Chunk, Game
from ingest import cancellation, services
from ingest.coordinator import run_job
from ingest.models import IngestJob
from questions.booklets import booklets_of
from questions.rendering import render_answer
from rag.page_render import ensure_page_image
from runtime import components
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf, scanned_pdf
from tests.ingest.running import ingest_inline

from . import hostile_pdfs

pytestmark = pytest.mark.django_db(transaction=True)

ENGLISH_RULES = [
    (f"{n}. Turn order", [f"Each player draws {n} cards from the deck and plays one of them face up on the table."])
    for n in range(1, 8)
]
SCANNED = [[f"Page {n} du livret", f"Chaque joueur pioche {n} cartes."] for n in range(1, 4)]


def booklet_as_served(client: Client, game: Game) -> dict:
    """What a player gets: the PDF's bytes, the chunks, the page images, the language, and
    the first chunk's citation link with the text of the page it opens."""
    game.refresh_from_db()
    response = client.get(f"/booklets/{game.pk}/pdf")
    assert response.status_code == 200
    pdf = b"".join(response.streaming_content)
    first = Chunk.objects.filter(collection=f"rules_{game.slug}").order_by("ordinal").first()
    html = render_answer(f"[{game.name}, p.{first.page_start}]", booklets_of(game, []))
    link = re.search(r'href="([^"]+)"', html)[1]
    path, page = link.split("#page=")
    linked = b"".join(client.get(path).streaming_content)
    page_text = extract_text(_file(linked), page_numbers=[int(page) - 1])
    images = game.base_booklet.images_dir
    return {
        "pdf": pdf,
        "chunks": Chunk.objects.filter(collection=f"rules_{game.slug}").count(),
        "images": {p.name: p.read_bytes() for p in sorted(images.glob("*.png"))},
        "language": game.language,
        "link": link,
        "cited_text_on_page": " ".join(first.text.split()[-5:]) in " ".join(page_text.split()),
    }


def _file(data: bytes):
    import io

    return io.BytesIO(data)


@pytest.fixture
def heat(tmp_path, alice):
    job = ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", LOREM_RULES), new_game_name="Heat")
    ensure_page_image(job.booklet.images_dir, 1, components.page_renderer())  # a player opened a citation: page 1 is rendered
    client = Client()
    client.force_login(alice)
    before = booklet_as_served(client, job.game)
    assert before["cited_text_on_page"] and before["images"] and before["language"] == "fr"
    return job.game, client, before


def upload(game, path) -> IngestJob:
    return services.create_ingest(pdf_path_or_file=path, game=game)


def test_a_replacement_is_served_only_once_its_chunks_are_in_and_all_change_together(heat, tmp_path):
    game, client, before = heat
    job = upload(game, rulebook_pdf(tmp_path / "v2.pdf", ENGLISH_RULES, per_page=1))
    assert booklet_as_served(client, game) == before, "queued: the booklet is still the old one"

    run_job(str(job.pk))

    job.refresh_from_db()
    after = booklet_as_served(client, game)
    assert job.status == IngestJob.Status.DONE, job.error
    assert after["pdf"] == (tmp_path / "v2.pdf").read_bytes()
    assert after["chunks"] == job.stats["chunks"] and after["chunks"] != before["chunks"]
    assert after["cited_text_on_page"], "the citation opens the page of the new PDF that holds its text"
    assert after["language"] == "en"
    # The old PDF's page images are gone; those of the new one that its OCR rendered took their place.
    assert after["images"] != before["images"] and len(after["images"]) == job.stats["ocr"]["pages_ocr"]
    assert game.pdf_pages == len(ENGLISH_RULES)


def test_a_bomb_replacement_fails_and_leaves_the_booklet_exactly_as_it_was(heat, tmp_path, settings):
    game, client, before = heat
    settings.PDF_MAX_STREAM_MB = 32
    job = upload(game, rulebook_pdf(tmp_path / "v2.pdf", ENGLISH_RULES))
    bomb = hostile_pdfs.zip_bomb_pdf(tmp_path / "bomb.pdf", inflated_mb=200)
    (settings.MEDIA_ROOT / job.pdf_path).write_bytes(bomb.read_bytes())  # breaks past the upload's checks

    run_job(str(job.pk))

    job.refresh_from_db()
    assert job.status == IngestJob.Status.ERROR and "bombe de décompression" in job.error
    assert booklet_as_served(client, game) == before
    kept = [e.data["message"] for e in job.events.filter(event="warning")]
    assert any("garde son PDF" in message for message in kept), kept
    assert job.stored_pdf() is not None, "the rejected file stays with its job, not with the booklet"


def test_a_cancelled_replacement_leaves_the_booklet_exactly_as_it_was(heat, tmp_path, monkeypatch):
    game, client, before = heat
    monkeypatch.setattr(cancellation, "CHECK_INTERVAL_S", 0)
    job = upload(game, scanned_pdf(tmp_path / "scan.pdf", SCANNED, tmp_path))  # OCR renders its pages

    def cancel_once_read(event, data):  # the admin clicks « Annuler » after the OCR
        if event == "act" and data["act"] == "embed" and data["state"] == "started":
            assert cancellation.request_cancel(IngestJob.objects.get(pk=job.pk)) == "requested"

    run_job(str(job.pk), cancel_once_read)

    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED
    assert job.stats == {} and job.progress["ocr"]["done"] == len(SCANNED)
    assert booklet_as_served(client, game) == before
    assert not Chunk.objects.filter(ingest_job=job).exists()
    assert not list(game.base_booklet.images_dir.parent.glob(".replacement-*")), "its staged page images are gone"
    assert any("garde son PDF" in e.data["message"] for e in job.events.filter(event="warning"))


def test_a_rerun_stopped_before_its_swap_keeps_the_rows_an_earlier_attempt_swapped_in(heat, monkeypatch):
    """An attempt swapped its rows in, then failed (say the index sync after it); « Relancer »
    runs the same job again and it is cancelled before its own swap: the booklet keeps the
    rules the first attempt gave it (they carry this job's id, and once were deleted as its
    « leftovers », leaving the booklet with no passage)."""
    game, client, before = heat
    monkeypatch.setattr(cancellation, "CHECK_INTERVAL_S", 0)
    job = IngestJob.objects.get(game=game)
    assert Chunk.objects.filter(ingest_job=job).count() == before["chunks"] > 0
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJob.Status.QUEUED, finished_at=None)  # relaunched

    def cancel_once_read(event, data):
        if event == "act" and data["act"] == "embed" and data["state"] == "started":
            assert cancellation.request_cancel(IngestJob.objects.get(pk=job.pk)) == "requested"

    run_job(str(job.pk), cancel_once_read)

    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED
    assert booklet_as_served(client, game) == before


def test_an_older_replacement_cannot_be_relaunched_over_a_newer_one(heat, tmp_path, settings):
    game, client, _before = heat
    settings.PDF_MAX_STREAM_MB = 32
    older = upload(game, rulebook_pdf(tmp_path / "v2.pdf", ENGLISH_RULES))
    hostile_pdfs.zip_bomb_pdf(tmp_path / "bomb.pdf", inflated_mb=200)
    (settings.MEDIA_ROOT / older.pdf_path).write_bytes((tmp_path / "bomb.pdf").read_bytes())
    run_job(str(older.pk))  # fails: the booklet keeps v1
    newer = upload(game, rulebook_pdf(tmp_path / "v3.pdf", ENGLISH_RULES, per_page=1))
    run_job(str(newer.pk))
    served = booklet_as_served(client, game)
    assert served["pdf"] == (tmp_path / "v3.pdf").read_bytes()

    older.refresh_from_db()
    with pytest.raises(services.CannotRelaunch, match="plus récente"):
        services.relaunch(older)

    older.refresh_from_db()
    assert older.status == IngestJob.Status.ERROR
    assert booklet_as_served(client, game) == served


def test_the_admin_links_a_booklets_pdf_where_it_is_served(client, alice, tmp_path):
    job = ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", LOREM_RULES), new_game_name="Heat")
    client.force_login(alice)
    page = client.get(f"/admin/games/game/{job.game.pk}/change/").content.decode()
    links = re.findall(r'href="([^"]*\.pdf|[^"]*/pdf)"', page)
    assert links == [f"/booklets/{job.game.pk}/pdf"], links
    assert client.get(links[0]).status_code == 200
    assert "/media/" not in page
