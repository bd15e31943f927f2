"""Issue 19, defect 2: a 4 kB PDF whose page content is `/FlateDecode` twice (or Flate with
`/DecodeParms`) over 2 GiB of zeros passed the guard — its child hit MemoryError, which was
swallowed as "no problem" — and held the worker at 2.4–4.3 GB for 17 minutes while every
queued job waited. The guard fails closed and bounds every decode chain; the read stage runs
in a child capped in memory."""

import time

import pytest

from ingest import services
from ingest.coordinator import run_job
from ingest.models import IngestJob
from ingest.pdf_guard import HostilePdf, PdfLimits, check_pdf
from tests.ingest.pdfs import LOREM_RULES

from . import hostile_pdfs as pdfs

BOMBS = {
    "double-flate": pdfs.double_flate_bomb_pdf,
    "decode-parms": pdfs.decode_parms_bomb_pdf,
}


@pytest.mark.parametrize("kind", BOMBS)
def test_guard_refuses_a_filter_chain_bomb(tmp_path, kind):
    bomb = BOMBS[kind](tmp_path / f"{kind}.pdf")

    with pytest.raises(HostilePdf, match="bombe de décompression"):
        check_pdf(bomb, PdfLimits())


def test_guard_fails_closed_when_its_child_runs_out_of_memory(tmp_path):
    """Size limits off: a chain ending in a filter that needs its whole input (RunLength) is
    decoded until the 200 MB child runs out of memory, which must be a refusal, never "no
    problem" (the Flate stages alone inflate in steps and would only be counted)."""
    import zlib

    bomb = pdfs.one_page_pdf(
        tmp_path / "bomb.pdf",
        content=zlib.compress(pdfs.deflate_zeros(2 << 30)),
        content_filter=b"/Filter [/FlateDecode /FlateDecode /RunLengthDecode]",
    )

    with pytest.raises(HostilePdf, match="trop de mémoire"):
        check_pdf(bomb, PdfLimits(max_stream_bytes=2**40, max_total_bytes=2**40, memory_mb=200))


def test_guard_still_measures_ascii_and_flate_chains_of_an_ordinary_page(tmp_path):
    import base64
    import zlib

    text = b"BT /F1 12 Tf 72 720 Td (Chaque joueur pioche deux cartes.) Tj ET"
    chained = base64.a85encode(zlib.compress(text), adobe=False) + b"~>"
    page = pdfs.one_page_pdf(tmp_path / "a85.pdf", content=chained, content_filter=b"/Filter [/ASCII85Decode /FlateDecode]")

    check_pdf(page, PdfLimits(max_stream_bytes=1024))  # small, readable: no problem
    with pytest.raises(HostilePdf, match="bombe"):
        check_pdf(page, PdfLimits(max_stream_bytes=len(text) - 1))


@pytest.mark.django_db
@pytest.mark.parametrize("kind", BOMBS)
def test_bomb_fails_its_job_quickly_and_the_next_queued_job_runs(tmp_path, settings, kind):
    bomb_job = services.create_ingest(pdf_path_or_file=pdfs.rulebook_pdf(tmp_path / "a.pdf", LOREM_RULES), new_game_name="Heat")
    (settings.MEDIA_ROOT / bomb_job.pdf_path).write_bytes(BOMBS[kind](tmp_path / "bomb.pdf").read_bytes())
    next_job = services.create_ingest(pdf_path_or_file=pdfs.rulebook_pdf(tmp_path / "b.pdf", LOREM_RULES), new_game_name="Azul")

    started = time.monotonic()
    bomb_job = run_job(str(bomb_job.pk))
    failed_after = time.monotonic() - started
    next_job = run_job(str(next_job.pk))

    print(f"\n{kind} bomb job failed after {failed_after:.1f} s: {bomb_job.error}")
    assert bomb_job.status == IngestJob.Status.ERROR
    assert "bombe de décompression" in bomb_job.error and "relancez" in bomb_job.error
    assert next_job.status == IngestJob.Status.DONE


@pytest.mark.django_db
def test_read_stage_runs_under_a_memory_cap(tmp_path, settings):
    """A PDF the guard lets through (limits raised) that needs more memory than the reader may
    have: the read child dies, the job fails with a message, the worker (this process) lives."""
    settings.PDF_MAX_STREAM_MB = 4096
    settings.PDF_MAX_TOTAL_MB = 4096
    settings.INGEST_READ_MEMORY_MB = 300
    job = services.create_ingest(pdf_path_or_file=pdfs.rulebook_pdf(tmp_path / "a.pdf", LOREM_RULES), new_game_name="Heat")
    (settings.MEDIA_ROOT / job.pdf_path).write_bytes(pdfs.zip_bomb_pdf(tmp_path / "bomb.pdf", inflated_mb=400).read_bytes())

    job = run_job(str(job.pk))

    assert job.status == IngestJob.Status.ERROR
    assert "300 Mo de mémoire" in job.error, job.error
