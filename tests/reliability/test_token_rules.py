"""Issue 28, defect 3: a token could issue tokens (whose children outlived its revocation),
never expired, and recorded nobody as its creator. Only a password (a session, or HTTP Basic)
issues or revokes a token; a token may expire (API_TOKEN_LIFETIME_DAYS, or the caller's
`expiresInDays`); deactivating a user revokes their tokens. What a staff token may do is what
docs/reliability.md says: the staff API operations, ingestion included — not tokens."""

import base64
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from questions.models import ApiToken
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def bearer(key) -> dict:
    return {"Authorization": f"Bearer {key}"}


def issue(client, headers=None, **body):
    return client.post("/api/tokens", body, content_type="application/json", headers=headers or {})


def test_a_token_can_neither_issue_nor_revoke_tokens(client, bob):
    parent, key = ApiToken.issue(bob, "script")

    refused = issue(client, bearer(key))
    assert refused.status_code == 403 and refused.json()["errors"] == []
    assert "mot de passe" in refused.json()["detail"]
    assert client.delete(f"/api/tokens/{parent.pk}", headers=bearer(key)).status_code == 403
    assert ApiToken.objects.count() == 1 and not ApiToken.objects.get().revoked
    assert client.get("/api/tokens", headers=bearer(key)).status_code == 200  # reading its list stays allowed

    client.force_login(bob)
    assert client.delete(f"/api/tokens/{parent.pk}").status_code == 204  # the session revokes it
    assert client.get("/api/tokens", headers=bearer(key)).status_code == 401


def test_a_password_issues_and_revokes_and_the_token_records_its_creator(client, bob):
    password = {"Authorization": "Basic " + base64.b64encode(b"bob:secret-pass-123").decode()}
    bob.set_password("secret-pass-123")
    bob.save()
    created = issue(client, password, name="cli")
    assert created.status_code == 201 and created.json()["createdBy"] == "bob" and created.json()["expiresAt"] is None
    assert client.delete(f"/api/tokens/{created.json()['id']}", headers=password).status_code == 204


def test_a_token_expires_by_the_callers_choice_or_the_setting(client, bob, settings):
    client.force_login(bob)
    chosen = issue(client, expiresInDays=2).json()
    assert abs(timezone.datetime.fromisoformat(chosen["expiresAt"]) - (timezone.now() + timedelta(days=2))) < timedelta(minutes=1)
    assert issue(client, expiresInDays=10**6).status_code == 422

    settings.API_TOKEN_LIFETIME_DAYS = 30
    default = issue(client).json()
    assert timezone.datetime.fromisoformat(default["expiresAt"]) > timezone.now() + timedelta(days=29)
    listed = {t["id"]: t for t in client.get("/api/tokens").json()["items"]}
    assert listed[default["id"]]["expiresAt"] == default["expiresAt"]

    works = bearer(default["key"])
    client.logout()
    assert client.get("/api/tokens", headers=works).status_code == 200
    ApiToken.objects.filter(pk=default["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = client.get("/api/tokens", headers=works)
    assert expired.status_code == 401 and "expiré" in expired.json()["detail"]


def test_deactivating_a_user_revokes_their_tokens(client, bob):
    token, key = ApiToken.issue(bob, "script")
    bob.is_active = False
    bob.save()
    token.refresh_from_db()
    assert token.revoked
    bob.is_active = True
    bob.save()
    assert client.get("/api/tokens", headers=bearer(key)).status_code == 401, "reactivation brings no token back"


def test_the_admin_shows_expiry_and_creator_and_records_who_made_a_token(client, alice, bob, settings):
    settings.API_TOKEN_LIFETIME_DAYS = 7
    client.force_login(alice)
    form = client.get("/admin/questions/apitoken/add/").content.decode()
    assert 'name="expires_at_0"' in form
    response = client.post("/admin/questions/apitoken/add/", {"user": bob.pk, "name": "for bob", "expires_at_0": "", "expires_at_1": ""})
    assert response.status_code == 302, response.content[:500]
    token = ApiToken.objects.get(name="for bob")
    assert token.user == bob and token.created_by == alice
    listing = client.get("/admin/questions/apitoken/").content.decode()
    assert "Expire le" in listing and "Créé par" in listing


def test_a_staff_token_ingests_a_player_token_does_not(client, alice, bob):
    _, staff = ApiToken.issue(alice, "staff")
    _, player = ApiToken.issue(bob, "player")
    assert client.get("/api/ingest", headers=bearer(staff)).status_code == 200
    assert client.get("/api/ingest", headers=bearer(player)).status_code == 403
    assert client.get(f"/api/games/{GameFactory().pk}/jobs", headers=bearer(staff)).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_token_migration_goes_back_and_forth(bob):
    executor = MigrationExecutor(connection)
    token, _ = ApiToken.issue(bob, "kept")
    executor.migrate([("questions", "0005_apitoken_uuid_primary_key")])
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes("questions"))  # the latest: later tests use today's model
    token = ApiToken.objects.get(pk=token.pk)
    assert token.name == "kept" and token.created_by == bob and token.expires_at is None
