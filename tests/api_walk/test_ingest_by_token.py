"""The ingest endpoints take a staff member's API token as they take a staff session; a
player's token is refused (403), no token or a wrong one is 401."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ingest.models import IngestJob
from questions.models import ApiToken
from tests.factories import GameFactory, IngestJobFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def bearer(user) -> dict:
    _, key = ApiToken.issue(user, "tests")
    return {"Authorization": f"Bearer {key}"}


def upload(client, tmp_path, headers):
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES).read_bytes()
    body = {"pdf": SimpleUploadedFile("heat.pdf", pdf, "application/pdf"), "new_game_name": "Heat"}
    return client.post("/api/games/ingest", body, headers=headers)


def test_a_staff_token_uploads_and_reads_jobs_without_csrf_or_session(client, alice, tmp_path):
    headers = bearer(alice)
    response = upload(client, tmp_path, headers)
    assert response.status_code == 202
    job = client.get(response.json()["job_url"], headers=headers)
    assert job.status_code == 200 and job.json()["status"] == "done"


def test_a_players_token_is_refused_and_nothing_is_written(client, bob, tmp_path):
    game = GameFactory()
    job = IngestJobFactory(game=game)
    headers = bearer(bob)
    response = upload(client, tmp_path, headers)
    assert response.status_code == 403 and "detail" in response.json()
    assert client.get(f"/api/games/{game.pk}/jobs", headers=headers).status_code == 403
    assert client.get(f"/api/ingest/{job.pk}", headers=headers).status_code == 403
    assert IngestJob.objects.count() == 1


def test_no_token_or_a_wrong_one_is_401(client, tmp_path):
    game = GameFactory()
    assert client.get(f"/api/games/{game.pk}/jobs").status_code == 401
    assert client.get(f"/api/games/{game.pk}/jobs", headers={"Authorization": "Bearer orc_nope"}).status_code == 401
    assert upload(client, tmp_path, {}).status_code == 401
