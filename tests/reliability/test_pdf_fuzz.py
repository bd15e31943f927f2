"""Mutated PDFs (flipped bytes, cut, spliced, duplicated objects) through the real ingestion
of a job: each ends `done` or `error` with a message a person can read, never a crash and
never a job stuck `running`. Seeded, so a failure replays."""

import random

import pytest

from ingest import services
from ingest.coordinator import run_job
from ingest.models import IngestJob
from tests.ingest.pdfs import rulebook_pdf

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

SEED = 20261129
MUTANTS = 24
RULES = [("1. But du jeu", ["Le premier pilote qui franchit la ligne gagne la course."]),
         ("2. Tour", ["Chaque joueur joue une carte puis avance sa voiture."])]


def mutate(data: bytes, rng: random.Random) -> bytes:
    data = bytearray(data)
    kind = rng.choice(["flip", "cut", "splice", "zero", "duplicate", "stream-length"])
    if kind == "flip":
        for _ in range(rng.randint(1, 40)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif kind == "cut":
        data = data[: rng.randrange(16, len(data))]
    elif kind == "splice":
        start = rng.randrange(len(data))
        data[start:start] = data[rng.randrange(len(data)) :][: rng.randint(1, 2000)]
    elif kind == "zero":
        start = rng.randrange(len(data))
        data[start : start + rng.randint(1, 500)] = b"\x00" * rng.randint(1, 500)
    elif kind == "duplicate":
        data += data[rng.randrange(len(data)) :]
    else:
        data = bytearray(bytes(data).replace(b"/Length ", b"/Length 9", 1))
    if not data.startswith(b"%PDF-"):
        data[:0] = b"%PDF-1.3\n"
    return bytes(data)


def test_mutated_pdfs_end_done_or_with_a_readable_error(tmp_path, settings):
    settings.OCR_ENABLED = False  # the reading stage is under test, not tesseract's patience
    original = rulebook_pdf(tmp_path / "ok.pdf", RULES).read_bytes()
    rng = random.Random(SEED)
    outcomes = {}
    for n in range(MUTANTS):
        mutant = mutate(original, rng)
        job = services.create_ingest(pdf_path_or_file=original, new_game_name=f"Mutant {n}")
        (settings.MEDIA_ROOT / job.pdf_path).write_bytes(mutant)  # past the upload checks

        job = run_job(str(job.pk))

        job.refresh_from_db()
        assert job.status in (IngestJob.Status.DONE, IngestJob.Status.ERROR), (n, job.status)
        if job.status == IngestJob.Status.ERROR:
            assert len(job.error) > 20 and "Traceback" not in job.error and "PDF" in job.error, (n, job.error)
            assert job.events.last().event == "error"
        outcomes[job.status] = outcomes.get(job.status, 0) + 1
    assert outcomes.get(IngestJob.Status.ERROR), "the mutations should break some PDFs"


def test_mutated_uploads_are_answered_with_4xx_never_500(client, alice, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    original = rulebook_pdf(tmp_path / "ok.pdf", RULES).read_bytes()
    rng = random.Random(SEED + 1)
    client.force_login(alice)
    for n in range(MUTANTS):
        response = client.post(
            "/api/games/ingest",
            {"pdf": SimpleUploadedFile("m.pdf", mutate(original, rng), "application/pdf"), "new_game_name": f"Upload {n}"},
        )
        assert response.status_code in (202, 400, 413), (n, response.status_code, response.content[:300])
