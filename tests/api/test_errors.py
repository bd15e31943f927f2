"""Every 4xx of the API has one shape: {"detail": a sentence, "errors": [{field, message}]}."""

import json

import pytest

from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


def test_a_field_error_names_the_field_by_its_dotted_path(client, bob):
    client.force_login(bob)
    game = GameFactory()
    body = {"gameId": str(game.pk), "question": "Et ensuite ?", "history": [{"question": 5}]}

    response = client.post("/api/ask/stream", json.dumps(body), content_type="application/json")

    assert response.status_code == 422
    errors = response.json()["errors"]
    assert errors and errors[0]["field"].startswith("history.0") and errors[0]["message"]
    assert "history.0" in response.json()["detail"]


def test_a_refusal_not_about_a_field_has_no_errors(client, bob):
    response = client.get("/api/games")
    assert response.status_code == 401 and set(response.json()) == {"detail", "errors"}
    client.force_login(bob)
    response = client.get("/api/ingest")
    assert response.status_code == 403 and response.json()["errors"] == []


def test_a_malformed_id_is_a_422_on_the_path_parameter(admin):
    response = admin.get("/api/booklets/not-a-uuid")
    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "booklet_id"


def test_what_does_not_exist_is_404(admin, player):
    for client in (admin, player):
        response = client.get("/api/booklets/7b0e6c55-6a3f-4b8e-9d42-0c7d4c1f0a11")
        assert response.status_code == 404 and response.json()["detail"]


def test_the_openapi_schema_describes_every_operation_with_examples(client):
    schema = client.get("/api/openapi.json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("description"), f"{method} {path}"
            if path != "/api/health":  # no input, no credentials: it cannot refuse
                assert any(code.startswith("4") for code in operation["responses"]), f"{method} {path}"
    components = schema["components"]["schemas"]
    for name in ("GameOut", "GameDetailOut", "BookletOut", "JobOut", "ErrorOut", "GameIn"):
        shown = components[name].get("examples") or [p.get("examples") for p in components[name]["properties"].values()]
        assert any(shown), name


def test_the_sentence_is_in_the_clients_language(player):
    response = player.get("/api/ingest", headers={"Accept-Language": "en"})
    assert response.status_code == 403 and response.json()["detail"] == "For administrators only."
