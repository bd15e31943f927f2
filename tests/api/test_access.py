"""Who may call each resource operation: a visitor without credentials gets 401; bob the player
reads games and booklets and gets 403 on everything that changes them or shows jobs; alice the
admin does it all. With ASK_ALLOW_ANONYMOUS on, a visitor reads like a player."""

import json

import pytest
from django.core.files.base import ContentFile

from ingest.models import IngestJob
from tests.factories import ChunkFactory, ExtensionFactory, GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tmp_path):
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES).read_bytes()
    game = GameFactory(name="Heat", pdf_pages=2)
    game.pdf.save("heat.pdf", ContentFile(pdf))
    extension = ExtensionFactory(game=game, name="Pluie", slug="heat-pluie", pdf_pages=2)
    extension.pdf.save("heat-pluie.pdf", ContentFile(pdf))
    ChunkFactory(game=game)  # its base booklet was read: players may fetch its PDF and pages
    failed = IngestJob.objects.create(game=game, status=IngestJob.Status.ERROR, pdf_path=game.pdf.name, error="boom")
    done = IngestJob.objects.create(game=game, status=IngestJob.Status.DONE, pdf_path=game.pdf.name)
    done.emit("done", {"chunks": 0})
    # Of another game: waiting on one of Heat's booklets, it would make « Relancer » of `failed`
    # or the re-ingestion of Pluie a 409 (one job per booklet at a time).
    other = GameFactory(name="Azul", pdf_pages=2)
    other.pdf.save("azul.pdf", ContentFile(pdf))
    waiting = IngestJob.objects.create(game=other, status=IngestJob.Status.QUEUED, pdf_path=other.pdf.name)
    return {"game": game.pk, "ext": extension.pk, "failed": failed.pk, "waiting": waiting.pk, "done": done.pk}


READS = [
    ("get", "/api/games", None, 200),
    ("get", "/api/games?q=hea&limit=5", None, 200),
    ("get", "/api/games/{game}", None, 200),
    ("get", "/api/games/{game}/booklets", None, 200),
    ("get", "/api/booklets/{ext}", None, 200),
    ("get", "/api/booklets/{game}/pdf", None, 200),
    ("get", "/api/booklets/{game}/pages/1", None, 200),
]
STAFF = [
    ("post", "/api/games", {"name": "Ark Nova"}, 201),
    ("patch", "/api/games/{game}", {"name": "Heat: Pedal to the Metal"}, 200),
    ("delete", "/api/games/{game}", None, 204),
    ("patch", "/api/booklets/{ext}", {"language": "en"}, 200),
    ("delete", "/api/booklets/{ext}", None, 204),
    ("post", "/api/booklets/{ext}/reingest", None, 202),
    ("get", "/api/ingest", None, 200),
    ("get", "/api/ingest?status=error&game_id={game}", None, 200),
    ("get", "/api/ingest/{done}", None, 200),
    ("get", "/api/ingest/{done}/events", None, 200),
    ("get", "/api/games/{game}/jobs", None, 200),
    ("post", "/api/ingest/{waiting}/cancel", None, 202),
    ("delete", "/api/ingest/{done}/scheduled", None, 409),  # the admin may; a finished job is refused on its merits
    ("post", "/api/ingest/{failed}/retry", None, 202),
]


def call(client, method, path, body, world):
    url = path.format(**world)
    if body is None:
        return getattr(client, method)(url)
    return getattr(client, method)(url, json.dumps(body), content_type="application/json")


def ids(rows):
    return [f"{method} {path}" for method, path, _body, _status in rows]


@pytest.mark.parametrize("method, path, body, status", READS + STAFF, ids=ids(READS + STAFF))
def test_a_visitor_without_credentials_gets_401(visitor, world, method, path, body, status):
    response = call(visitor, method, path, body, world)
    assert response.status_code == 401
    assert response.json()["detail"] and response.json()["errors"] == []


@pytest.mark.parametrize("method, path, body, status", READS, ids=ids(READS))
def test_a_player_reads_games_and_booklets(player, world, method, path, body, status):
    assert call(player, method, path, body, world).status_code == status


@pytest.mark.parametrize("method, path, body, status", STAFF, ids=ids(STAFF))
def test_a_player_may_not_change_the_catalogue_nor_see_jobs(player, world, method, path, body, status):
    response = call(player, method, path, body, world)
    assert response.status_code == 403
    assert response.json()["detail"]


@pytest.mark.parametrize("method, path, body, status", READS + STAFF, ids=ids(READS + STAFF))
def test_the_admin_does_it_all(admin, world, method, path, body, status):
    response = call(admin, method, path, body, world)
    assert response.status_code == status, response.content[:300]


@pytest.mark.parametrize("method, path, body, status", READS, ids=ids(READS))
def test_an_open_site_lets_visitors_read(visitor, world, settings, method, path, body, status):
    settings.ASK_ALLOW_ANONYMOUS = True
    assert call(visitor, method, path, body, world).status_code == status


@pytest.mark.parametrize("method, path, body, status", STAFF, ids=ids(STAFF))
def test_an_open_site_still_keeps_visitors_out_of_staff_operations(visitor, world, settings, method, path, body, status):
    settings.ASK_ALLOW_ANONYMOUS = True
    assert call(visitor, method, path, body, world).status_code == 401


def test_a_players_session_is_refused_403_before_its_input_is_read(client, bob):
    client.force_login(bob)
    response = client.post("/api/games", json.dumps({"name": ""}), content_type="application/json")
    assert response.status_code == 403
