"""Hostile and broken PDFs fail their own job with a message an admin can act on; the
process that runs the job survives, nothing else is touched, nothing is rendered to disk."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games.models import Chunk
from ingest import services
from ingest.coordinator import run_job
from ingest.models import IngestJob
from ingest.pdf_guard import HostilePdf, PdfLimits, check_pdf
from tests.factories import ChunkFactory, GameFactory
from tests.ingest.pdfs import LOREM_RULES

from . import hostile_pdfs as pdfs


def ingest_bytes_bypassing_upload_checks(tmp_path, settings, hostile) -> IngestJob:
    """A job whose stored PDF is replaced after the upload checks (as a PDF that only breaks
    deeper than the page count would be), then run the way the worker runs it."""
    job = services.create_ingest(pdf_path_or_file=pdfs.rulebook_pdf(tmp_path / "ok.pdf", LOREM_RULES), new_game_name="Heat")
    (settings.MEDIA_ROOT / job.pdf_path).write_bytes(hostile.read_bytes())
    return run_job(str(job.pk))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda p: pdfs.zip_bomb_pdf(p / "bomb.pdf", inflated_mb=200), "bombe de décompression"),
        (lambda p: pdfs.huge_image_pdf(p / "image.pdf"), "mégapixels"),
        (lambda p: pdfs.huge_page_pdf(p / "page.pdf"), "mesure 200000 × 200000 points"),
        (lambda p: pdfs.encrypted_pdf(p / "locked.pdf"), "chiffré"),
        (lambda p: pdfs.corrupt_pdf(p / "corrupt.pdf"), "illisible"),
        (lambda p: pdfs.truncated_pdf(p / "half.pdf", pdfs.rulebook_pdf(p / "whole.pdf", LOREM_RULES)), "PDF"),
    ],
    ids=["zip-bomb", "huge-image", "huge-page", "encrypted", "corrupt", "truncated"],
)
def test_hostile_pdf_fails_its_job_with_a_readable_error(tmp_path, settings, make, expected):
    settings.PDF_MAX_STREAM_MB = 32
    other = ChunkFactory(game=GameFactory(name="Azul"), text="Les tuiles restent au centre.")

    job = ingest_bytes_bypassing_upload_checks(tmp_path, settings, make(tmp_path))

    assert job.status == IngestJob.Status.ERROR
    assert expected in job.error and "relancez" in job.error
    assert "Traceback" not in job.error
    assert job.events.last().event == "error"
    assert not Chunk.objects.filter(collection="rules_heat").exists()
    assert Chunk.objects.filter(pk=other.pk).exists()
    assert not list(settings.PAGE_IMAGES_DIR.rglob("*.png")), "no page image may be rendered from a rejected PDF"


def test_guard_gives_up_on_a_pdf_that_takes_too_long_to_inspect(tmp_path):
    bomb = pdfs.zip_bomb_pdf(tmp_path / "bomb.pdf", inflated_mb=300)

    with pytest.raises(HostilePdf, match="a dépassé"):
        check_pdf(bomb, PdfLimits(max_stream_bytes=2**40, max_total_bytes=2**40, timeout_s=0.05))


def test_guard_child_is_killed_by_its_memory_cap_not_the_worker(tmp_path):
    """Even with size limits off, decoding happens in a child capped at 200 MB. (Flate alone is
    inflated in steps and only counted: a RunLength stage after it needs its whole input.)"""
    bomb = pdfs.one_page_pdf(
        tmp_path / "bomb.pdf", content=pdfs.deflate_zeros(400 << 20), content_filter=b"/Filter [/FlateDecode /RunLengthDecode]"
    )

    with pytest.raises(HostilePdf, match="trop de mémoire"):
        check_pdf(bomb, PdfLimits(max_stream_bytes=2**40, max_total_bytes=2**40, memory_mb=200))


def test_guard_lets_an_ordinary_rulebook_through(tmp_path):
    check_pdf(pdfs.rulebook_pdf(tmp_path / "ok.pdf", LOREM_RULES), PdfLimits())
    check_pdf(pdfs.text_page_pdf(tmp_path / "raw.pdf"), PdfLimits())


@pytest.mark.django_db
def test_upload_api_rejects_encrypted_and_non_pdf_files_before_storing_anything(client, alice, tmp_path, settings):
    client.force_login(alice)
    locked = pdfs.encrypted_pdf(tmp_path / "locked.pdf")
    for name, data in (("locked.pdf", locked.read_bytes()), ("evil.pdf", b"MZ\x90\x00 not a pdf at all")):
        response = client.post(
            "/api/games/ingest", {"pdf": SimpleUploadedFile(name, data, "application/pdf"), "new_game_name": "Heat"}
        )
        assert response.status_code == 400, response.content
    assert not IngestJob.objects.exists()
    assert not list(settings.PDF_DIR.glob("*.pdf"))
