"""/api/health as anyone sees it: statuses and kinds of backend, never a server path, an
address or an error text (those are for staff, tests/site/test_health.py)."""

import json

import pytest
from django.conf import settings

from oracle_site import health

pytestmark = pytest.mark.django_db


def test_anonymous_health_shows_no_path_address_or_detail(client, monkeypatch, tmp_path):
    secret_dir = tmp_path / "var" / "qdrant" / "edge"
    monkeypatch.setitem(health.CHECKS, "vector_store", lambda: health.Check(
        status="down", backend=f"edge {secret_dir}", detail=f"collections missing under {secret_dir}"))
    monkeypatch.setitem(health.CHECKS, "embedder", lambda: health.Check(status="ok", backend="tei@http://10.1.2.3:8080"))
    monkeypatch.setitem(health.CHECKS, "lexicon", lambda: health.Check(status="degraded", backend=str(tmp_path / "dict")))

    def broken():
        raise OSError(f"[Errno 13] Permission denied: '{settings.BASE_DIR}/var/oracle.sqlite3'")

    monkeypatch.setitem(health.CHECKS, "bgg", broken)
    response = client.get("/api/health")
    body = response.json()
    text = json.dumps(body)

    assert response.status_code == 503 and body["status"] == "down"
    for leak in (str(tmp_path), str(settings.BASE_DIR), "10.1.2.3", "Errno", "/var/", "http://"):
        assert leak not in text, leak
    assert body["components"]["vector_store"] == {"status": "down", "latency_ms": body["components"]["vector_store"]["latency_ms"],
                                                   "detail": "", "backend": "edge"}
    assert body["components"]["embedder"]["backend"] == "tei"
    assert body["components"]["lexicon"]["backend"] == ""
    assert all(check["detail"] == "" for check in body["components"].values())


def test_anonymous_health_of_the_real_components_has_no_slash_path(client):
    text = client.get("/api/health").content.decode()
    assert str(settings.BASE_DIR) not in text and '"/' not in text
