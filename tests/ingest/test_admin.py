"""The admin: upload a booklet, follow jobs, retry a failed one."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games.models import Chunk
from ingest.models import IngestJob
from tests.factories import GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def test_admin_uploads_a_booklet_for_an_existing_game(client, alice, tmp_path):
    game = GameFactory(name="Heat", slug="heat")
    client.force_login(alice)
    pdf = SimpleUploadedFile("heat.pdf", rulebook_pdf(tmp_path / "h.pdf", LOREM_RULES).read_bytes())

    response = client.post(
        "/admin/ingest/ingestjob/add/", {"game": game.pk, "kind": "base", "language": "fr", "pdf": pdf}, follow=True
    )

    job = IngestJob.objects.get(game=game)
    assert response.redirect_chain[-1][0] == f"/admin/ingest/ingestjob/{job.pk}/change/"
    assert job.status == IngestJob.Status.DONE
    assert Chunk.objects.filter(game=game).exists()
    listing = client.get("/admin/ingest/ingestjob/").content.decode()
    assert "Heat" in listing and "Terminée" in listing


def test_admin_upload_form_explains_what_is_wrong(client, alice):
    client.force_login(alice)
    pdf = SimpleUploadedFile("heat.pdf", b"just text, not a pdf")

    response = client.post("/admin/ingest/ingestjob/add/", {"new_game_name": "Heat", "kind": "base", "language": "fr", "pdf": pdf})

    assert response.status_code == 200
    assert "pas un PDF" in response.content.decode()
    assert not IngestJob.objects.exists()


def test_retry_action_runs_a_failed_job_again(client, alice, tmp_path, settings):
    from ingest import services

    client.force_login(alice)
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "h.pdf", LOREM_RULES), new_game_name="Heat")
    job.transition(IngestJob.Status.ERROR, error="tesseract introuvable")

    response = client.post(
        "/admin/ingest/ingestjob/", {"action": "retry_jobs", "_selected_action": [str(job.pk)]}, follow=True
    )

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE and job.error == ""
    assert "1 ingestion relancée" in response.content.decode()
