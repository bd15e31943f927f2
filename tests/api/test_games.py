"""/api/games: search, pagination, ordering; create, rename, delete (everything goes with it)."""

import json
from pathlib import Path

import pytest
from django.conf import settings

from games.models import Chunk, Extension, Game
from ingest.models import IngestJob
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def test_games_are_searched_by_name_and_paginated_with_their_total(player):
    for name in ["Heat", "Heat: Heavy Rain", "Ark Nova", "Azul"]:
        GameFactory(name=name)

    page = player.get("/api/games", {"q": "heat", "limit": 1}).json()
    assert page["count"] == 2 and [g["name"] for g in page["items"]] == ["Heat"]
    second = player.get("/api/games", {"q": "heat", "limit": 1, "offset": 1}).json()
    assert [g["name"] for g in second["items"]] == ["Heat: Heavy Rain"]
    newest_first = player.get("/api/games", {"ordering": "-name"}).json()
    assert [g["name"] for g in newest_first["items"]] == ["Heat: Heavy Rain", "Heat", "Azul", "Ark Nova"]


def test_a_list_asks_for_at_most_100_rows(player):
    response = player.get("/api/games", {"limit": 101})
    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "limit"


def test_a_game_shows_its_booklets_with_their_state(player, heat):
    body = player.get(f"/api/games/{heat.pk}").json()

    assert body["booklet_count"] == 2 and body["created_at"].endswith(("Z", "+00:00"))
    base, rain = body["booklets"]
    assert (base["id"], base["kind"], base["language"]) == (str(heat.pk), "base", "fr")
    assert base["chunk_count"] > 0 and base["index_state"] in ("pending", "indexed")
    assert base["last_job"] is None and base["pdf_url"] == f"/api/booklets/{heat.pk}/pdf"  # jobs are staff's
    assert (rain["name"], rain["kind"]) == ("Pluie", "extension")


def test_staff_create_a_game_and_rename_it(admin):
    created = admin.post("/api/games", json.dumps({"name": "Ark Nova", "language": "en"}), content_type="application/json")
    assert created.status_code == 201
    game_id = created.json()["id"]
    assert created.json()["slug"] == "ark-nova" and created.json()["booklets"][0]["index_state"] == "empty"

    renamed = admin.patch(f"/api/games/{game_id}", json.dumps({"name": "Arche Nova"}), content_type="application/json")
    assert renamed.status_code == 200 and Game.objects.get(pk=game_id).name == "Arche Nova"


def test_renaming_a_game_renames_it_in_what_its_chunks_carry(admin, heat):
    admin.patch(f"/api/games/{heat.pk}", json.dumps({"name": "Heat: Pedal to the Metal"}), content_type="application/json")
    assert {c.payload["game_name"] for c in Chunk.objects.filter(game=heat)} == {"Heat: Pedal to the Metal"}


def test_a_blank_name_is_refused_naming_the_field(admin):
    response = admin.post("/api/games", json.dumps({"name": "   "}), content_type="application/json")
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "name" and "name" in response.json()["detail"]
    nul = admin.post("/api/games", json.dumps({"name": "Heat\x00"}), content_type="application/json")
    assert nul.status_code == 422  # PostgreSQL would refuse it with a 500


def test_deleting_a_game_takes_its_chunks_vectors_pdfs_and_page_images(admin, heat, store):
    collections = [b.collection for b in heat.booklets()]
    assert all(store.count(c) for c in collections)
    pdfs = [Path(settings.MEDIA_ROOT) / b.pdf.name for b in heat.booklets()]
    images = heat.base_booklet.images_dir
    assert admin.get(f"/api/booklets/{heat.pk}/pages/1").status_code == 200 and images.is_dir()

    assert admin.delete(f"/api/games/{heat.pk}").status_code == 204

    assert not Game.objects.filter(pk=heat.pk).exists() and not Extension.objects.exists()
    assert not Chunk.objects.exists() and not IngestJob.objects.exists()
    assert all(store.count(c) == 0 for c in collections)
    assert not any(p.exists() for p in pdfs) and not images.exists()
    assert admin.get(f"/api/games/{heat.pk}").status_code == 404


def test_a_game_whose_ingestion_runs_is_not_deleted(admin, heat):
    IngestJob.objects.create(game=heat, status=IngestJob.Status.RUNNING, pdf_path=heat.pdf.name)

    response = admin.delete(f"/api/games/{heat.pk}")

    assert response.status_code == 409 and "annulez" in response.json()["detail"]
    assert Game.objects.filter(pk=heat.pk).exists()


def test_a_game_is_deleted_whole_or_not_at_all_when_a_later_booklet_is_being_read(admin, heat, store):
    rain = Extension.objects.get(game=heat)
    waiting = IngestJob.objects.create(game=heat, status=IngestJob.Status.QUEUED, pdf_path=heat.pdf.name)
    running = IngestJob.objects.create(game=heat, extension=rain, status=IngestJob.Status.RUNNING, pdf_path=rain.pdf.name)
    pdfs = [Path(settings.MEDIA_ROOT) / b.pdf.name for b in heat.booklets()]

    response = admin.delete(f"/api/games/{heat.pk}")

    assert response.status_code == 409 and response.json()["errors"] == []
    assert str(running.pk) in response.json()["detail"] and "Pluie" in response.json()["detail"]
    waiting.refresh_from_db()
    assert waiting.status == IngestJob.Status.QUEUED  # the base booklet, before it, untouched
    assert admin.get(f"/api/games/{heat.pk}").json()["booklet_count"] == 2
    assert all(p.exists() for p in pdfs) and all(store.count(b.collection) for b in heat.booklets())


def test_every_running_ingestion_of_the_game_is_named_in_the_refusal(admin, heat):
    rain = Extension.objects.get(game=heat)
    jobs = [
        IngestJob.objects.create(game=heat, status=IngestJob.Status.RUNNING, pdf_path=heat.pdf.name),
        IngestJob.objects.create(game=heat, extension=rain, status=IngestJob.Status.RUNNING, pdf_path=rain.pdf.name),
    ]

    detail = admin.delete(f"/api/games/{heat.pk}").json()["detail"]

    assert all(str(job.pk) in detail for job in jobs) and "annulez-les" in detail
