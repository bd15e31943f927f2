"""Killing real processes: the django-q2 worker in the middle of an ingest (the job is
picked up again and finishes from its caches), the web process in the middle of an answer
(the question is marked failed, never pending forever)."""

import re

import httpx
import pytest
from django.test import Client

from ingest.models import IngestJob
from questions.models import ApiToken, Question
from tests.ingest.pdfs import scanned_pdf

from .processes import SlowOpenAI, server_env, start_daphne, start_qcluster, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CSRF = "b" * 32


def staff_session(user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {"Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF}", "X-CSRFToken": CSRF}


def test_killed_worker_job_is_picked_up_again_and_finishes_from_its_cache(settings, tmp_path, alice):
    env = server_env(
        settings, tmp_path / "var",
        RECOVERY_SWEEP_INTERVAL_S=1, INGEST_HEARTBEAT_S=1, INGEST_STALE_AFTER_S=4, OCR_CONCURRENCY=1,
    )
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]
    pdf = scanned_pdf(tmp_path / "scan.pdf", [[f"Page {w} du livret", f"mot clef {w}"] for w in words], tmp_path)
    web, base_url = start_daphne(env, tmp_path / "daphne.log")
    worker = start_qcluster(env, tmp_path / "qcluster-1.log")
    try:
        with open(pdf, "rb") as handle:
            response = httpx.post(
                f"{base_url}/api/games/ingest", headers=staff_session(alice),
                files={"pdf": ("scan.pdf", handle, "application/pdf")}, data={"new_game_name": "Scan"}, timeout=30,
            )
        assert response.status_code == 202, response.text
        job = IngestJob.objects.get(pk=response.json()["job_id"])
        ocr_done = lambda: (IngestJob.objects.get(pk=job.pk).progress.get("ocr") or {}).get("done", 0)  # noqa: E731
        wait_for(lambda: ocr_done() >= 4, timeout=240, what="four OCR'd pages")

        worker.kill()

        assert IngestJob.objects.get(pk=job.pk).status == IngestJob.Status.RUNNING
        worker = start_qcluster(env, tmp_path / "qcluster-2.log")
        job = wait_for(
            lambda: IngestJob.objects.filter(pk=job.pk, status__in=["done", "error"]).first(), timeout=300, what="the job to end"
        )
    finally:
        worker.stop()
        web.stop()
    assert job.status == IngestJob.Status.DONE, job.error
    assert job.attempts == 2
    assert job.stats["ocr"]["from_cache"] >= 3  # saved every 3 pages before the kill
    assert any("reprend" in e.data.get("message", "") for e in job.events.filter(event="warning"))
    assert "golf" in " ".join(job.chunks.values_list("text", flat=True)).lower()


def test_killed_web_process_leaves_no_question_pending_forever(settings, tmp_path, bob):
    from tests.factories import ExtensionFactory, GameFactory
    from tests.rag.corpus import create_chunk_rows

    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    _token, key = ApiToken.issue(bob)
    llm = SlowOpenAI(slow_model="slow-answer")
    env = server_env(
        settings, tmp_path / "var",
        LLM_BACKEND="openai", OPENAI_BASE_URL=llm.url, LLM_MODEL_SONNET="slow-answer", LLM_MODEL_HAIKU="fast",
        LLM_FALLBACK_MODEL="", RECOVERY_SWEEP_INTERVAL_S=1,
        ASK_STALE_AFTER_S=600,  # not waited for: the mark names the killed process, which the restarted one sees gone
    )
    web, base_url = start_daphne(env, tmp_path / "daphne-1.log")
    try:
        body = {"gameId": str(game.pk), "question": "Peut-on jouer une carte Boost ?"}
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.stream("POST", f"{base_url}/api/ask/stream", json=body, headers=headers, timeout=60) as stream:
            seen = ""
            for chunk in stream.iter_text():
                seen += chunk
                if "event: token" in seen:
                    break
        question_id = re.search(r'"questionId": "([0-9a-f-]+)"', seen).group(1)

        web.kill()  # mid-answer: the answering thread dies with its process

        assert Question.objects.get(pk=question_id).status == Question.Status.PENDING
        web, base_url = start_daphne(env, tmp_path / "daphne-2.log")
        polled = wait_for(
            lambda: (r := httpx.get(f"{base_url}/api/ask/{question_id}", headers=headers)).status_code == 200 and r,
            timeout=60, what="the question to be settled",
        )
    finally:
        web.stop()
        llm.close()
    assert polled.json()["status"] == "error"
    assert "interrompue" in polled.json()["error"]
