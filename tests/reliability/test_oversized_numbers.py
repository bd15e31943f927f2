"""Issue 28, defect 2: a decklist line starting with 5,000 nines was an HTML 500 (Python's
int() refuses 4,300 digits). Every number read from a request is bounded before it is
converted: decklists, card names, pagination, ids, event ids and body lengths."""

import pytest
from asgiref.sync import async_to_sync
from django.core.asgi import get_asgi_application

from oracle_site.body_limit import BodySizeLimit
from questions.rendering import render_answer
from tests.factories import IngestJobFactory

from .test_body_limits import _call

pytestmark = pytest.mark.django_db
NINES = "9" * 5000


def assert_refused_as_json(response, *statuses):
    assert response.status_code in statuses, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["detail"], str) and isinstance(body["errors"], list)
    return body


@pytest.fixture
def magic(magic_catalog):
    return magic_catalog  # the deck routes need a catalog


@pytest.mark.parametrize("line", [f"{NINES} Lightning Bolt", f"SB: {NINES}x Opt", f"{NINES}"], ids=["main", "sideboard", "bare"])
def test_a_decklist_quantity_of_5000_digits_is_a_field_error(client, bob, magic, line):
    client.force_login(bob)
    response = client.post("/api/decks/validate", {"gameId": str(magic.pk), "decklist": f"4 Opt\n{line}"},
                           content_type="application/json")
    if line == NINES:  # no card name: not a card line, the list is checked without it
        assert response.status_code == 200, response.content[:300]
        return
    body = assert_refused_as_json(response, 422)
    assert body["errors"][0]["field"] == "decklist" and "Quantité trop grande" in body["detail"]


def test_a_four_digit_quantity_is_still_read(client, bob, magic):
    client.force_login(bob)
    response = client.post("/api/decks/validate", {"gameId": str(magic.pk), "decklist": "9999 Island"},
                           content_type="application/json")
    assert response.status_code == 200 and response.json()["sections"]["main"] == [[9999, "Island"]]


def test_card_names_and_limits_of_5000_digits(client, bob, magic):
    client.force_login(bob)
    assert client.get(f"/api/games/{magic.pk}/cards", {"q": NINES}).status_code == 200
    assert_refused_as_json(client.get(f"/api/games/{magic.pk}/cards", {"q": "Opt", "limit": NINES}), 422)
    assert_refused_as_json(client.get(f"/api/games/{magic.pk}/cards/lookup", {"name": NINES}), 404)
    answer = render_answer(f"[[card:{NINES}]] [Dominaria, p.{NINES}]", [])
    assert "citation" not in answer  # a page no booklet has is left as text


@pytest.mark.parametrize("url", ["/api/games", "/api/tokens", "/api/conversations", f"/api/games/{{game}}/booklets"])
@pytest.mark.parametrize("parameter", ["limit", "offset"])
def test_pagination_of_5000_digits_is_a_field_error(client, alice, magic, url, parameter):
    client.force_login(alice)
    body = assert_refused_as_json(client.get(url.format(game=magic.pk), {parameter: NINES}), 422)
    assert body["errors"][0]["field"] == parameter


@pytest.mark.parametrize("url", [
    "/api/games/{n}", "/api/booklets/{n}", "/api/booklets/{game}/pages/{n}", "/api/ingest/{n}",
    "/api/conversations/{n}", "/api/ask/{n}", "/api/tokens/{n}", "/api/ingest/{job}/events?last_event_id={n}",
])
def test_ids_and_pages_of_5000_digits_are_refused_as_json(client, alice, magic, url):
    client.force_login(alice)
    job = IngestJobFactory(game=magic)
    response = client.get(url.format(n=NINES, game=magic.pk, job=job.pk)) if "tokens" not in url else \
        client.delete(url.format(n=NINES))
    assert_refused_as_json(response, 404, 405, 422)


@pytest.mark.parametrize("header", [NINES, "¹²³"], ids=["5000-digits", "superscript-digits"])
def test_a_last_event_id_header_that_is_no_plain_number_is_ignored(client, alice, magic, header):
    client.force_login(alice)
    job = IngestJobFactory(game=magic, status="done")
    response = client.get(f"/api/ingest/{job.pk}/events", headers={"Last-Event-ID": header})
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"  # replayed from the start


def test_a_content_length_of_5000_digits_is_a_413(settings):
    app = BodySizeLimit(get_asgi_application())
    status, body, read = async_to_sync(_call)(app, "/api/ask/stream", [b"{}"], [(b"content-length", NINES.encode())])
    assert status == 413 and read == 0 and b'"errors": []' in body
