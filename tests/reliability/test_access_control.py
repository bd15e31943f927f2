"""Who may do what, across every entry point: staff only for ingestion, schedules,
cancelling and the admin; signed-in players (or anyone, when the site allows it) for
asking, polling and reading booklets; REST clients with their per-user Bearer token;
CSRF on every session-authenticated POST."""

import re
import uuid

import pytest
from django.core.files.base import ContentFile
from django.test import Client

from ingest.models import IngestJob
from questions.models import ApiToken
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@pytest.fixture
def game():
    game = GameFactory(rules=True, name="Heat")
    game.pdf.save("heat.pdf", ContentFile(PDF_BYTES))
    return game


@pytest.fixture
def job(game):
    return IngestJob.objects.create(game=game, status=IngestJob.Status.DONE, pdf_path=game.pdf.name)


def staff_requests(game, job):
    return [
        ("post", "/api/games/ingest", {"new_game_name": "Ark Nova"}),
        ("get", f"/api/ingest/{job.pk}", None),
        ("get", f"/api/ingest/{job.pk}/events", None),
        ("get", f"/api/games/{game.pk}/jobs", None),
        ("delete", f"/api/games/{game.pk}/scheduled", None),
        ("delete", f"/api/ingest/{job.pk}/scheduled", None),
        ("post", f"/api/ingest/{job.pk}/cancel", None),
    ]


STAFF_PAGES = ["/ingestion/", "/ingestion/nouvelle/", "/admin/", "/admin/questions/apitoken/", "/admin/ingest/ingestjob/add/"]


def call(client, method, path, data=None, **extra):
    return getattr(client, method)(path, data, **extra) if data is not None else getattr(client, method)(path, **extra)


def test_staff_only_api_refuses_visitors_players_and_player_tokens(client, bob, game, job):
    """401 without credentials, 403 for a player signed in by session or by token."""
    _token, key = ApiToken.issue(bob)
    for method, path, data in staff_requests(game, job):
        assert call(Client(), method, path, data).status_code == 401, path
        client.force_login(bob)
        assert call(client, method, path, data).status_code == 403, path
        assert call(Client(), method, path, data, headers={"Authorization": f"Bearer {key}"}).status_code == 403, path
        assert call(Client(), method, path, data, headers={"Authorization": "Bearer orc_unknown"}).status_code == 401, path


def test_staff_reaches_the_staff_only_api(client, alice, game, job):
    client.force_login(alice)
    assert client.get(f"/api/ingest/{job.pk}").status_code == 200
    assert client.get(f"/api/games/{game.pk}/jobs").status_code == 200
    assert client.delete(f"/api/games/{game.pk}/scheduled").status_code == 409  # nothing scheduled: refused on its merits
    assert client.delete(f"/api/ingest/{job.pk}/scheduled").status_code == 409  # done: no longer scheduled
    assert client.post(f"/api/ingest/{job.pk}/cancel").status_code == 409  # done: nothing to cancel


def test_staff_pages_send_visitors_and_players_to_the_login(client, bob, alice):
    for path in STAFF_PAGES:
        assert Client().get(path).status_code == 302, path
        client.force_login(bob)
        response = client.get(path)
        assert response.status_code == 302 and "login" in response["Location"], path
    client.force_login(alice)
    for path in STAFF_PAGES:
        assert client.get(path).status_code == 200, path


def test_players_read_booklets_visitors_only_when_the_site_is_open(client, bob, game, settings):
    pdf = f"/booklets/{game.pk}/pdf"
    assert Client().get(pdf).status_code == 302
    assert Client().get(f"/booklets/{game.pk}/view").status_code == 302
    client.force_login(bob)
    assert client.get(pdf).status_code == 200
    settings.ASK_ALLOW_ANONYMOUS = True
    assert Client().get(pdf).status_code == 200


def test_asking_needs_a_session_a_token_or_an_open_site(bob, game, settings):
    body = {"gameId": str(uuid.uuid4()), "question": "Combien de cartes ?"}  # unknown game: 422 once let in
    ask = lambda client, **extra: client.post("/api/ask/stream", body, content_type="application/json", **extra)  # noqa: E731
    assert ask(Client()).status_code == 401
    _token, key = ApiToken.issue(bob)
    assert ask(Client(), headers={"Authorization": f"Bearer {key}"}).status_code == 422
    settings.ASK_ALLOW_ANONYMOUS = True
    assert ask(Client()).status_code == 422


def test_session_posts_without_csrf_token_are_refused(bob, alice, game):
    player = Client(enforce_csrf_checks=True)
    player.force_login(bob)
    body = {"gameId": str(game.pk), "question": "Combien de cartes ?"}
    assert player.post("/api/ask/stream", body, content_type="application/json").status_code == 403
    admin = Client(enforce_csrf_checks=True)
    admin.force_login(alice)
    assert admin.post("/api/games/ingest", {"new_game_name": "Ark Nova"}).status_code == 403
    assert admin.delete(f"/api/games/{game.pk}/scheduled").status_code == 403
    assert admin.post(f"/api/ingest/{IngestJob.objects.create(game=game, pdf_path=game.pdf.name).pk}/cancel").status_code == 403


def test_session_post_with_the_pages_csrf_token_goes_through(bob, game):
    player = Client(enforce_csrf_checks=True)
    player.force_login(bob)
    page = player.get(f"/jeux/{game.slug}/")
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.content.decode()).group(1)
    body = {"gameId": str(uuid.uuid4()), "question": "Combien de cartes ?"}  # unknown game: 422 once let in
    response = player.post("/api/ask/stream", body, content_type="application/json", headers={"X-CSRFToken": token})
    assert response.status_code == 422


def test_admin_issues_a_token_shown_once_and_revokes_it(client, alice, bob, game):
    client.force_login(alice)
    response = client.post(
        "/admin/questions/apitoken/add/", {"user": bob.pk, "name": "bot discord"}, follow=True
    )
    key = re.search(r"(orc_[A-Za-z0-9_\-]+)", response.content.decode()).group(1)
    token = ApiToken.objects.get(name="bot discord")
    assert token.user == bob and key not in (token.key_hash, token.prefix)
    poll = lambda: Client().get(f"/api/ask/{uuid.uuid4()}", headers={"Authorization": f"Bearer {key}"})  # noqa: E731
    assert poll().status_code == 404  # authenticated; the question just does not exist

    client.post(f"/admin/questions/apitoken/{token.pk}/change/", {"user": bob.pk, "name": "bot discord", "revoked": "on"})

    assert poll().status_code == 401
    assert key not in client.get(f"/admin/questions/apitoken/{token.pk}/change/").content.decode()
