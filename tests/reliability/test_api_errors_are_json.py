"""Issue 28, defect 4: some refusals under /api/ were Django's HTML pages: a 5,000-character
multipart filename on POST /api/games/ingest (raised while the CSRF check reads the form),
the login lockout's 429 on HTTP Basic to /api/tokens. Every answer under /api/ is JSON in
the documented shape; Django's pages stay where a browser reads them."""

import base64

import pytest
from django.test import Client

from tests.factories import UserFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def assert_json_error(response, status):
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"] and body["errors"] == []
    return body


def csrf_client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/")  # the CSRF cookie, as the browser has it
    return client


def multipart_with_filename(filename: str) -> bytes:
    boundary = "oracleboundary"
    return (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"new_game_name\"\r\n\r\nHeat\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"pdf\"; filename=\"{filename}\"\r\n"
        f"Content-Type: application/pdf\r\n\r\n%PDF-1.4\r\n--{boundary}--\r\n"
    ).encode(), f"multipart/form-data; boundary={boundary}"


def test_a_5000_character_multipart_filename_is_a_json_400(alice):
    client = csrf_client(alice)
    body, content_type = multipart_with_filename("a" * 5000 + ".pdf")
    response = client.generic("POST", "/api/games/ingest", body, content_type=content_type,
                              headers={"X-CSRFToken": client.cookies["csrftoken"].value})
    assert "header size" in assert_json_error(response, 400)["detail"]


def test_a_csrf_failure_under_api_is_json_and_names_the_reason(alice, tmp_path):
    client = csrf_client(alice)
    with open(rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), "rb") as pdf:
        response = client.post("/api/games/ingest", {"pdf": pdf, "new_game_name": "Heat"})  # no CSRF token
    assert assert_json_error(response, 403)["detail"].startswith("Vérification CSRF échouée")
    with open(rulebook_pdf(tmp_path / "r.pdf", LOREM_RULES), "rb") as pdf:
        english = client.post("/api/games/ingest", {"pdf": pdf, "new_game_name": "Heat"}, headers={"Accept-Language": "en"})
    assert assert_json_error(english, 403)["detail"].startswith("CSRF check failed: with a session, send the X-CSRFToken header")
    page = csrf_client(alice).post("/logout/")
    assert page.status_code == 403 and page["Content-Type"].startswith("text/html"), "a browser page keeps Django's"


def test_the_login_lockout_on_basic_auth_to_tokens_is_a_json_429(client, settings):
    settings.AXES_FAILURE_LIMIT = 3
    UserFactory(username="carol")
    wrong = {"Authorization": "Basic " + base64.b64encode(b"carol:wrong").decode()}
    statuses = [client.post("/api/tokens", {}, content_type="application/json", headers=wrong).status_code for _ in range(4)]
    assert statuses[:2] == [401, 401] and statuses[-1] == 429
    last = client.post("/api/tokens", {}, content_type="application/json", headers=wrong)
    assert "tentatives" in assert_json_error(last, 429)["detail"]


def test_an_unknown_url_under_api_is_a_json_404_and_elsewhere_a_page(client):
    assert_json_error(client.get("/api/no-such-thing"), 404)
    assert client.get("/no-such-thing")["Content-Type"].startswith("text/html")
