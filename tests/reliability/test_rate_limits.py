"""Asking and uploading are rate limited per user and per client address (settings), with
429 and Retry-After; the counts live in the shared cache."""

import uuid

import pytest
from django.test import Client

from questions.models import ApiToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

BODY = {"gameId": str(uuid.uuid4()), "question": "Combien de cartes ?"}  # refused with 422 after the limits


def ask(client, **extra):
    return client.post("/api/ask/stream", BODY, content_type="application/json", **extra)


def test_a_player_over_the_ask_limit_gets_429_with_retry_after(client, bob, settings):
    settings.RATE_LIMIT_ASK_USER = "3/m"
    client.force_login(bob)
    assert [ask(client).status_code for _ in range(3)] == [422, 422, 422]

    refused = ask(client)

    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60


def test_the_user_limit_follows_the_user_across_session_and_token(client, bob, settings):
    settings.RATE_LIMIT_ASK_USER = "2/m"
    client.force_login(bob)
    _token, key = ApiToken.issue(bob)
    assert ask(client).status_code == 422
    assert ask(Client(), headers={"Authorization": f"Bearer {key}"}).status_code == 422
    assert ask(Client(), headers={"Authorization": f"Bearer {key}"}).status_code == 429
    other = Client()
    other.force_login(UserFactory(username="carol"))
    assert ask(other).status_code == 422  # carol has her own count


def test_one_address_is_limited_whoever_asks_from_it(settings):
    settings.RATE_LIMIT_ASK_USER = ""
    settings.RATE_LIMIT_ASK_IP = "2/m"
    settings.ASK_ALLOW_ANONYMOUS = True
    assert [ask(Client(REMOTE_ADDR="203.0.113.7")).status_code for _ in range(2)] == [422, 422]
    assert ask(Client(REMOTE_ADDR="203.0.113.7")).status_code == 429
    assert ask(Client(REMOTE_ADDR="203.0.113.8")).status_code == 422


def test_a_client_cannot_escape_the_ip_limit_with_a_forged_forwarded_header(settings):
    settings.RATE_LIMIT_ASK_IP = "1/m"
    settings.ASK_ALLOW_ANONYMOUS = True
    visitor = Client(REMOTE_ADDR="203.0.113.7")
    assert ask(visitor, headers={"X-Forwarded-For": "198.51.100.1"}).status_code == 422
    assert ask(visitor, headers={"X-Forwarded-For": "198.51.100.2"}).status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_client_address_is_counted(settings):
    settings.RATE_LIMIT_ASK_IP = "1/m"
    settings.TRUSTED_PROXIES = 1
    settings.ASK_ALLOW_ANONYMOUS = True
    proxy = Client(REMOTE_ADDR="10.0.0.2")
    assert ask(proxy, headers={"X-Forwarded-For": "198.51.100.1"}).status_code == 422
    assert ask(proxy, headers={"X-Forwarded-For": "198.51.100.2"}).status_code == 422
    assert ask(proxy, headers={"X-Forwarded-For": "forged, 198.51.100.2"}).status_code == 429


def test_uploads_are_limited_per_admin(client, alice, settings):
    settings.RATE_LIMIT_UPLOAD_USER = "2/h"
    client.force_login(alice)
    codes = [client.post("/api/games/ingest", {"new_game_name": "Heat"}).status_code for _ in range(3)]
    assert codes[:2] == [422, 422] and codes[2] == 429


def test_an_empty_rate_disables_that_limit(client, bob, settings):
    settings.RATE_LIMIT_ASK_USER = ""
    settings.RATE_LIMIT_ASK_IP = ""
    client.force_login(bob)
    assert {ask(client).status_code for _ in range(15)} == {422}


def test_asks_checked_at_the_same_time_do_not_get_past_the_limit(settings, bob, monkeypatch):
    """Follow-ups are checked in the ask setup pool's threads, several at once. Each check
    reads the player's history, then writes it back one longer: two reads of the same history
    both passed, so a player firing asks together got several times the limit. (The store is
    slowed as Redis over a network or the file cache on a busy disk are: every read waits
    50 ms, so the checks overlap every time.)"""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from django.core.cache import caches
    from django.test import RequestFactory

    from questions.services import Asker, check_rate
    from runtime.refusals import TooManyRequests
    from runtime import ratelimit

    settings.RATE_LIMIT_ASK_USER = "2/m"
    settings.RATE_LIMIT_ASK_IP = ""

    class SlowReads:
        def __init__(self, cache):
            self.cache = cache

        def get(self, *args, **kwargs):
            value = self.cache.get(*args, **kwargs)
            time.sleep(0.05)
            return value

        def set(self, *args, **kwargs):
            return self.cache.set(*args, **kwargs)

    monkeypatch.setattr(ratelimit.SettingsRateThrottle, "cache", property(lambda _self: SlowReads(caches[settings.RATE_LIMIT_CACHE])))
    together = threading.Barrier(6)

    def one_ask() -> bool:
        request = RequestFactory().post("/api/ask/stream")
        request.user = request.auth = bob
        together.wait()
        try:
            check_rate(Asker.of(request))
            return True
        except TooManyRequests:
            return False

    with ThreadPoolExecutor(6) as pool:
        allowed = list(pool.map(lambda _: one_ask(), range(6)))

    assert allowed.count(True) == 2
