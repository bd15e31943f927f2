"""Secure headers on every response, a CSP that only lets our own scripts run, framing only
for the booklet viewer, and `manage.py check --deploy` clean with production settings."""

import os
import secrets
import subprocess
import sys

import pytest
from django.core.files.base import ContentFile

from tests.factories import GameFactory
from tests.support.daphne import BASE_DIR

pytestmark = pytest.mark.django_db


def csp(response) -> dict[str, str]:
    directives = [d.strip().split(" ", 1) for d in response["Content-Security-Policy"].split(";")]
    return {d[0]: d[1] if len(d) > 1 else "" for d in directives}


def test_pages_forbid_inline_and_foreign_scripts_and_being_framed(client, bob):
    client.force_login(bob)
    response = client.get("/")
    policy = csp(response)
    assert policy["script-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"]


def test_the_booklet_viewer_may_be_framed_by_our_chat_and_run_pdfjs(client, bob):
    game = GameFactory(name="Heat", rules=True)
    game.pdf.save("heat.pdf", ContentFile(b"%PDF-1.4"))
    client.force_login(bob)
    for path in (f"/booklets/{game.pk}/view", f"/booklets/{game.pk}/pdf"):
        response = client.get(path)
        assert response["X-Frame-Options"] == "SAMEORIGIN"
        assert csp(response)["frame-ancestors"] == "'self'"
    policy = csp(client.get(f"/booklets/{game.pk}/view"))
    assert "blob:" in policy["worker-src"] and "blob:" in policy["img-src"]  # pdf.js worker and images


def test_api_and_stream_responses_carry_the_headers_too(client, bob):
    assert "default-src 'self'" in client.get("/api/health")["Content-Security-Policy"]


def test_hsts_and_secure_cookies_when_https_is_on(client, settings):
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    response = client.get("/login/", secure=True)
    assert response["Strict-Transport-Security"].startswith("max-age=31536000")


def production_env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "SECURE_HTTPS")}
    env.update(
        DJANGO_SETTINGS_MODULE="oracle_site.settings",
        SECURE_HTTPS="true",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="oracle.example.org",
    )
    env.update(extra)
    return env


def manage(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120)


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    done = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env(ORACLE_VAR_DIR=str(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_check_deploy_catches_a_weak_production_setup(tmp_path):
    """The same check fails without HTTPS settings: the clean run above is not vacuous."""
    env = production_env(ORACLE_VAR_DIR=str(tmp_path), SECURE_HTTPS="false")
    done = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert done.returncode != 0
    assert "security.W004" in done.stderr + done.stdout  # no HSTS


def test_production_settings_refuse_to_start_without_a_secret_key(tmp_path):
    env = production_env(ORACLE_VAR_DIR=str(tmp_path))
    del env["SECRET_KEY"]
    done = manage("check", env=env)
    assert done.returncode != 0 and "SECRET_KEY is not set" in done.stderr


@pytest.mark.parametrize("signed_in", [True, False])
def test_the_viewer_pane_shows_a_framable_page_for_a_withdrawn_booklet_or_a_signed_out_player(client, bob, signed_in):
    """In the chat's pane the site's 404 and login page (DENY) would be the browser's
    « refused to connect »: a framed request gets a page it may show, saying what happened."""
    game = GameFactory(name="Heat")
    if signed_in:
        client.force_login(bob)
    framed = {"Sec-Fetch-Dest": "iframe"}
    for path in (f"/booklets/{game.pk}/view?page=3", f"/booklets/{game.pk}/pdf"):  # no PDF stored: withdrawn
        response = client.get(path, headers=framed)
        assert response.status_code == (404 if signed_in else 403)
        assert response["X-Frame-Options"] == "SAMEORIGIN" and csp(response)["frame-ancestors"] == "'self'"
        text = response.content.decode()
        assert ("Livret indisponible" if signed_in else "Vous avez été déconnecté") in text
        if not signed_in:
            assert 'target="_top"' in text and "/login/?next=" in text
    if not signed_in:  # not in a frame: the login page, as before
        assert client.get(f"/booklets/{game.pk}/view").status_code == 302
