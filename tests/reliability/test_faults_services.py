"""Faults of what Oracle depends on: the Qdrant folder deleted, TEI down, the SSH VM
unreachable, BGG down. Each gives a clear error or the offline path, and /api/health says
which component is down and why. (Ports are real closed ports on 127.0.0.1.)"""

import shutil

import pytest
from django.core.management import call_command

from games.indexing import sync_if_changed
from ingest import services
from questions.models import Question
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from runtime import components
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf
from tests.support.daphne import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def staff_reads_health(client, alice):
    """/api/health shows its details to staff only (docs/reliability.md)."""
    client.force_login(alice)


@pytest.fixture
def heat(tmp_path):
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    services.enqueue(job)  # Q_SYNC: ingested here
    job.refresh_from_db()
    assert job.status == "done", job.error
    return job.game


def ask(game, text="Peut-on jouer une carte Boost après avoir dépassé la limite de vitesse ?"):
    events = []
    question = create_question(game=game, text=text)
    answer_question(question.pk, lambda name, data: events.append((name, data)))
    question.refresh_from_db()
    return question, events


def component(client, name):
    return client.get("/api/health").json()["components"][name]


def test_deleted_qdrant_folder_is_reported_and_reindex_rebuilds_it(client, settings, heat):
    sync_if_changed(components.vector_store(), [heat.base_booklet.collection])
    components.reset_vector_store()
    shutil.rmtree(settings.QDRANT_PATH)

    broken = component(client, "vector_store")
    assert broken["status"] == "down" and "rules_heat" in broken["detail"] and "reindex" in broken["detail"]

    call_command("reindex")

    assert component(client, "vector_store")["status"] == "ok"
    question, events = ask(heat)
    assert question.status == Question.Status.DONE
    context = next(data for name, data in events if name == "context")
    assert any("Boost" in chunk["text"] for chunk in context["chunks"])


def test_tei_down_is_reported_and_a_question_fails_readably_instead_of_hanging(client, settings, heat):
    settings.EMBEDDINGS_BACKEND = "tei"
    settings.TEI_URL = f"http://127.0.0.1:{free_port()}"
    settings.EMBEDDINGS_TIMEOUT_S = 3

    embedder = component(client, "embedder")
    assert embedder["status"] == "down" and embedder["detail"]

    question, events = ask(heat)
    assert question.status == Question.Status.ERROR and question.error.startswith("L'Oracle n'a pas pu répondre")
    assert events[-1][0] == "error"


def test_unreachable_ssh_vm_is_reported_and_answers_fall_back_to_the_booklets(client, settings, heat, tmp_path):
    settings.LLM_BACKEND = "claude-ssh"
    settings.CLAUDE_SSH_HOST = "127.0.0.1"
    settings.CLAUDE_SSH_PORT = free_port()
    settings.CLAUDE_SSH_CONNECT_TIMEOUT_S = 2
    (tmp_path / "known_hosts").write_text("")
    settings.CLAUDE_SSH_KNOWN_HOSTS = str(tmp_path / "known_hosts")
    settings.LLM_HEALTH_CACHE_S = 0

    llm = component(client, "llm")
    assert llm["status"] == "down" and llm["detail"]

    question, _events = ask(heat)
    assert question.status == Question.Status.DONE
    assert "Boost" in question.answer  # the extractive answer quotes the booklet
    assert question.diagnostics["llm"]


def test_bgg_down_is_reported_by_health_and_the_sync_does_not_fail_the_others(client, settings, heat):
    from games import bgg_sync

    settings.BGG_API_TOKEN = "token"
    settings.BGG_FORUM_SYNC_ENABLED = True
    settings.BGG_BASE_URL = f"http://127.0.0.1:{free_port()}/xmlapi2/"
    settings.BGG_MIN_INTERVAL_S = 0
    type(heat).objects.filter(pk=heat.pk).update(bgg_id=266192)

    reports = bgg_sync.sync_all_games()

    assert reports and reports[0].get("error")
    bgg = component(client, "bgg")
    assert bgg["status"] == "degraded" and "heat: BGG" in bgg["detail"] and "unreachable" in bgg["detail"]


def test_a_database_that_cannot_store_the_failure_still_ends_the_stream_with_an_error(monkeypatch):
    """The answer fails on the database (SQLite locked past its timeout while the worker
    ingests, PostgreSQL restarting), and storing the failure fails the same way: the stream
    still gets its `error` event (it once got heartbeats until the client gave up), and
    nothing escapes into the answer pool, where it was lost unlogged."""
    from django.db import OperationalError

    from questions.ask_flow import flow
    from questions.models import QuestionQuerySet
    from tests.factories import GameFactory

    question = create_question(game=GameFactory(name="Heat"), text="Combien de cartes en main ?")

    def locked(*_args, **_kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(flow, "run", locked)
    monkeypatch.setattr(QuestionQuerySet, "mark_failed", locked)
    events = []

    answer_question(question.pk, lambda name, data: events.append((name, data)))

    name, data = events[-1]
    assert name == "error" and data["questionId"] == str(question.pk)
    assert data["message"] == "L'Oracle n'a pas pu répondre à cette question. Réessayez dans un instant."  # not the database's words
