"""POST /api/games/ingest and the job endpoints: staff only, clear 4xx, nothing written
on bad input."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games.models import Chunk, Extension, Game
from ingest.models import IngestJob
from tests.factories import GameFactory
from tests.ingest.pdfs import LOREM_RULES, encrypted_pdf, rulebook_pdf

pytestmark = pytest.mark.django_db


def upload(client, content: bytes, filename="regles.pdf", **data):
    return client.post("/api/games/ingest", {"pdf": SimpleUploadedFile(filename, content, "application/pdf"), **data})


@pytest.fixture
def rules_bytes(tmp_path):
    return rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES).read_bytes()


def test_staff_upload_answers_202_and_the_job_runs_to_done(client, alice, rules_bytes):
    client.force_login(alice)

    response = upload(client, rules_bytes, new_game_name="Heat", language="fr")

    assert response.status_code == 202
    body = response.json()
    assert body["events_url"] == f"/api/ingest/{body['job_id']}/events"
    job = client.get(body["job_url"]).json()
    assert job["status"] == "done" and job["booklet_name"] == "Heat"
    assert job["progress"]["embed"]["done"] == job["stats"]["chunks"]
    jobs = client.get(f"/api/games/{body['game_id']}/jobs").json()
    assert [j["id"] for j in jobs["items"]] == [body["job_id"]] and jobs["count"] == 1


def test_extension_upload_creates_its_own_booklet(client, alice, rules_bytes):
    game = GameFactory(name="Heat", slug="heat")
    client.force_login(alice)

    response = upload(client, rules_bytes, game_id=str(game.pk), kind="extension", name="Tempête", language="fr")

    assert response.status_code == 202
    extension = Extension.objects.get(game=game)
    assert (extension.name, extension.kind, extension.slug) == ("Tempête", "extension", "heat-tempete")
    assert Chunk.objects.filter(collection="rules_heat-tempete", extension=extension).exists()


@pytest.mark.parametrize(
    ("content", "status", "words"),
    [
        (b"", 400, "vide"),
        (b"GIF89a not a pdf at all", 400, "pas un PDF"),
        (b"%PDF-1.4\n%%EOF\n", 400, "illisible"),
        # a page tree made of a name: pdfminer raised AttributeError, the upload answered 500
        (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages /Foo >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n", 400, "illisible"),
    ],
)
def test_bad_files_get_a_clear_4xx_and_nothing_is_written(client, alice, settings, content, status, words):
    client.force_login(alice)

    response = upload(client, content, filename="regles.pdf", new_game_name="Heat")

    assert response.status_code == status
    assert words in response.json()["detail"]
    assert not Game.objects.exists() and not IngestJob.objects.exists()
    assert not settings.PDF_DIR.exists() or not any(settings.PDF_DIR.iterdir())


def test_a_pdf_is_recognised_by_its_bytes_not_its_name(client, alice, rules_bytes):
    client.force_login(alice)

    assert upload(client, b"%PDF-" + b"x" * 50, filename="ok.pdf", new_game_name="A").status_code == 400
    assert upload(client, rules_bytes, filename="regles.bin", new_game_name="Heat").status_code == 202


def test_encrypted_pdf_is_refused(client, alice, tmp_path):
    client.force_login(alice)

    response = upload(client, encrypted_pdf(tmp_path / "locked.pdf").read_bytes(), new_game_name="Heat")

    assert response.status_code == 400 and "mot de passe" in response.json()["detail"]
    assert not Game.objects.exists()


def test_size_and_page_limits_answer_413(client, alice, settings, rules_bytes):
    client.force_login(alice)
    settings.UPLOAD_MAX_PAGES = 1
    assert upload(client, rules_bytes, new_game_name="Heat").status_code == 413
    settings.UPLOAD_MAX_PAGES, settings.UPLOAD_MAX_BYTES = 600, 1000
    assert upload(client, rules_bytes, new_game_name="Heat").status_code == 413
    assert not Game.objects.exists()


def test_unknown_game_answers_404(client, alice, rules_bytes):
    client.force_login(alice)

    response = upload(client, rules_bytes, game_id="7b0e6c55-6a3f-4b8e-9d42-0c7d4c1f0a11")

    assert response.status_code == 404 and "Jeu inconnu" in response.json()["detail"]


def test_players_and_anonymous_visitors_cannot_ingest_or_read_jobs(client, bob, rules_bytes):
    assert upload(client, rules_bytes, new_game_name="Heat").status_code == 401
    client.force_login(bob)  # signed in, not staff: 403
    assert upload(client, rules_bytes, new_game_name="Heat").status_code == 403
    job = IngestJob.objects.create(game=GameFactory())
    assert client.get(f"/api/ingest/{job.pk}").status_code == 403
    assert client.get(f"/api/ingest/{job.pk}/events").status_code == 403
    assert not Game.objects.filter(name="Heat").exists()


def test_upload_without_csrf_token_is_refused(alice, rules_bytes):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    assert upload(client, rules_bytes, new_game_name="Heat").status_code in (401, 403)
    assert not Game.objects.exists()


def test_endpoints_are_documented_in_the_openapi_schema(client):
    paths = client.get("/api/openapi.json").json()["paths"]

    assert {"/api/games/ingest", "/api/ingest/{job_id}", "/api/ingest/{job_id}/events", "/api/games/{game_id}/jobs"} <= set(paths)
