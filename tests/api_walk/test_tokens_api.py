"""/api/tokens: a signed-in player lists, issues (key shown once) and revokes their own API
tokens; the first one can be issued with their username and password."""

import base64
import uuid

import pytest

from questions.models import ApiToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests/factories.py


def basic(username: str, password: str = PASSWORD) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


def issue(client, headers, name="script"):
    return client.post("/api/tokens", {"name": name}, content_type="application/json", headers=headers)


def test_a_script_gets_its_first_token_with_the_accounts_password_and_the_key_is_shown_once(client, bob):
    response = issue(client, basic("bob"))

    assert response.status_code == 201
    key = response.json()["key"]
    token = ApiToken.objects.get(user=bob)
    assert token.key_hash == ApiToken.hash_key(key) and key.startswith(response.json()["prefix"])
    listed = client.get("/api/tokens", headers={"Authorization": f"Bearer {key}"})
    assert listed.status_code == 200
    assert listed.json()["count"] == 1 and "key" not in listed.json()["items"][0]
    assert listed.json()["items"][0]["name"] == "script"


def test_a_wrong_password_gets_401_and_counts_towards_the_lockout(client, bob, settings):
    from axes.models import AccessAttempt

    assert issue(client, basic("bob", "wrong")).status_code == 401
    assert AccessAttempt.objects.filter(username="bob").exists()
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("username, password", [("\x00", ""), ("bob\x00", PASSWORD), ("bob", "\x00")])
def test_a_nul_character_in_the_credentials_is_a_401_not_a_server_error(client, bob, username, password):
    """PostgreSQL's text fields refuse NUL: the lockout's lookup of such a name was a 500."""
    assert issue(client, basic(username, password)).status_code == 401
    assert client.delete(f"/api/tokens/{uuid.uuid4()}", headers=basic(username, password)).status_code == 401


def test_the_password_only_issues_tokens(client, bob):
    assert client.get("/api/tokens", headers=basic("bob")).status_code == 401
    assert client.get("/api/conversations", headers=basic("bob")).status_code == 401


def test_a_signed_in_player_issues_one_through_the_session(client, bob):
    client.force_login(bob)
    assert issue(client, {}).status_code == 201
    assert client.get("/api/tokens").json()["count"] == 1


def test_a_player_sees_and_revokes_only_their_own_tokens_staff_included(client, bob, alice):
    bobs, bobs_key = ApiToken.issue(bob, "bob's")
    alices, alices_key = ApiToken.issue(alice, "alice's")
    as_bob, as_alice = {"Authorization": f"Bearer {bobs_key}"}, {"Authorization": f"Bearer {alices_key}"}

    assert [t["name"] for t in client.get("/api/tokens", headers=as_alice).json()["items"]] == ["alice's"]
    assert client.delete(f"/api/tokens/{bobs.pk}", headers=as_bob).status_code == 403  # a token revokes no token
    client.force_login(alice)
    assert client.delete(f"/api/tokens/{bobs.pk}").status_code == 404
    client.force_login(bob)
    assert client.delete(f"/api/tokens/{alices.pk}").status_code == 404

    assert client.delete(f"/api/tokens/{bobs.pk}").status_code == 204
    client.logout()
    bobs.refresh_from_db()
    assert bobs.revoked
    assert client.get("/api/tokens", headers=as_bob).status_code == 401  # revoked: at once
    assert client.get("/api/tokens", headers=as_alice).status_code == 200


def test_a_visitor_is_asked_to_sign_in(client, bob):
    token, _ = ApiToken.issue(bob)
    assert client.get("/api/tokens").status_code == 401
    assert issue(client, {}).status_code == 401
    assert client.delete(f"/api/tokens/{token.pk}").status_code == 401
    assert issue(client, basic("nobody")).status_code == 401


def test_an_inactive_account_gets_no_token(client):
    UserFactory(username="gone", is_active=False)
    assert issue(client, basic("gone")).status_code == 401


def test_a_token_is_named_by_a_uuid_as_every_resource(client, bob):
    import uuid

    client.force_login(bob)
    created = issue(client, {}).json()
    assert uuid.UUID(created["id"]) and client.get("/api/tokens").json()["items"][0]["id"] == created["id"]

    by_number = client.delete("/api/tokens/1")
    assert by_number.status_code == 422 and by_number.json()["errors"][0]["field"] == "token_id"
    assert client.delete(f"/api/tokens/{created['id']}").status_code == 204
