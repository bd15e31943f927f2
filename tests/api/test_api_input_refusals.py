"""Input the API once took for what it is not: a blank name on upload, `true` or "1" for a
number, and a body that is not JSON answered in English whatever the client's language."""

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from games.models import Extension, Game
from questions.models import ApiToken
from tests.factories import GameFactory, QuestionFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def upload(tmp_path, **fields):
    pdf = rulebook_pdf(tmp_path / "rules.pdf", LOREM_RULES).read_bytes()
    later = (timezone.now() + timedelta(days=1)).isoformat()  # scheduled: nothing is read inline
    return {"pdf": SimpleUploadedFile("rules.pdf", pdf, "application/pdf"), "scheduled_start_at": later, **fields}


def test_an_upload_for_a_new_game_with_a_blank_name_is_refused(admin, tmp_path):
    response = admin.post("/api/games/ingest", upload(tmp_path, new_game_name="   "))

    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "new_game_name"
    assert not Game.objects.exists()


@pytest.mark.parametrize("kind", ["extension", "base"])
def test_an_upload_with_a_blank_booklet_name_is_refused(admin, tmp_path, kind):
    game = GameFactory(name="Heat")

    response = admin.post("/api/games/ingest", upload(tmp_path, game_id=str(game.pk), kind=kind, name="  "))

    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "name"
    game.refresh_from_db()
    assert not Extension.objects.exists() and not game.booklet_name and not game.ingest_jobs.exists()


@pytest.mark.parametrize("rating", [True, "1", 1.0])
def test_a_rating_is_a_number_not_a_boolean_nor_a_string(player, bob, rating):
    question = QuestionFactory(user=bob, status="done", answer="Deux.")

    response = player.put(f"/api/ask/{question.pk}/feedback", json.dumps({"rating": rating}), content_type="application/json")

    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "rating"
    question.refresh_from_db()
    assert question.rating is None


@pytest.mark.parametrize("days", [True, "30"])
def test_a_token_lifetime_is_a_number_not_a_boolean_nor_a_string(bob, days):
    client = Client()
    client.force_login(bob)

    response = client.post("/api/tokens", json.dumps({"name": "script", "expiresInDays": days}), content_type="application/json")

    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "expiresInDays"
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("language, sentence", [("fr", "Requête invalide : son corps n'a pas pu être lu"),
                                                ("en", "Invalid request: its body could not be read")])
def test_a_body_that_is_not_json_is_a_400_in_the_clients_language(admin, language, sentence):
    response = admin.post("/api/games", "{not json", content_type="application/json", headers={"Accept-Language": language})

    assert response.status_code == 400
    assert response.json()["detail"].startswith(sentence) and response.json()["errors"] == []
    assert not Game.objects.exists()


@pytest.mark.parametrize("kind", ["extension", "faq", "advanced_rules"])
def test_an_upload_of_a_booklet_other_than_the_base_needs_its_name(admin, tmp_path, kind):
    game = GameFactory(name="Heat")

    response = admin.post("/api/games/ingest", upload(tmp_path, game_id=str(game.pk), kind=kind))

    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "name"
    assert "Nommez le livret" in response.json()["errors"][0]["message"]
    assert not Extension.objects.exists() and not game.ingest_jobs.exists()
