"""A revoked API token stops working at once in the process that revoked it, even when a
lookup of that token was reading it at the same moment (questions/lookups.py remembers a
token it looked up for ASK_LOOKUP_CACHE_S)."""

import threading

import pytest
from django.db import connection, transaction

from questions import lookups
from questions.auth import find_token
from questions.models import ApiToken

ASK = "/api/ask/stream"


def ask_with(client, key, game_id):
    body = {"gameId": str(game_id), "question": "Combien de cartes en main ?"}
    return client.post(ASK, body, content_type="application/json", headers={"Authorization": f"Bearer {key}"})


def revoke(token_id) -> None:
    token = ApiToken.objects.get(pk=token_id)  # saved as the admin and the API do: signals run
    token.revoked = True
    token.save(update_fields=["revoked"])


@pytest.mark.django_db
def test_a_token_revoked_while_its_lookup_reads_it_is_not_remembered(client, bob, monkeypatch):
    _token, key = ApiToken.issue(bob)
    key_hash = ApiToken.hash_key(key)
    live = ApiToken.expired

    def revoked_right_after_the_read(api_token):
        revoke(api_token.pk)  # between the lookup's query and its remembering the row
        return live.fget(api_token)

    monkeypatch.setattr(ApiToken, "expired", property(revoked_right_after_the_read))
    assert find_token(key_hash) is not None  # it read the token before the revocation
    monkeypatch.setattr(ApiToken, "expired", live)

    assert lookups.tokens.get(key_hash) is None
    assert ask_with(client, key, bob.pk).status_code == 401


@pytest.mark.django_db(transaction=True)
def test_a_token_looked_up_before_its_revocation_commits_is_forgotten_when_it_commits(client, bob):
    """The admin saves inside a transaction: until it commits, every other connection still
    reads the live token, and a lookup in that window once remembered it for 10 s."""
    _token, key = ApiToken.issue(bob)
    key_hash = ApiToken.hash_key(key)
    found = []

    def another_request_looks_it_up():
        try:
            found.append(find_token(key_hash))
        finally:
            connection.close()

    with transaction.atomic():
        revoke(_token.pk)
        reader = threading.Thread(target=another_request_looks_it_up)
        reader.start()
        reader.join()
        assert found[0] is not None and lookups.tokens.get(key_hash) is not None  # the window

    assert lookups.tokens.get(key_hash) is None
    assert ask_with(client, key, bob.pk).status_code == 401
