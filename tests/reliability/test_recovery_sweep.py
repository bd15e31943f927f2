"""After a process dies, nothing stays in progress forever: questions pending past their time
fail with a message (at once when their process is known to have stopped), jobs whose worker stopped beating are queued again and resume from
their caches, and a job that keeps killing its worker ends in error."""

import json
import subprocess
import sys
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from ingest import recovery as job_recovery
from ingest import services
from ingest.coordinator import run_job
from ingest.models import IngestJob
from ingest.stages import ocr
from runtime import flags
from questions import recovery as question_recovery
from questions.ask_flow import answering as answers
from questions.models import Question
from tests.factories import GameFactory, QuestionFactory
from tests.ingest.pdfs import scanned_pdf

pytestmark = pytest.mark.django_db


def age(model, pk, **delta):
    field = "created_at" if model is Question else "updated_at"
    model.objects.filter(pk=pk).update(**{field: timezone.now() - timedelta(**delta)})


def test_question_left_pending_by_a_dead_process_is_failed_and_polled_as_such(client, bob, settings):
    settings.ASK_STALE_AFTER_S = 300
    orphan = QuestionFactory(user=bob)
    answering = QuestionFactory(user=bob)
    age(Question, orphan.pk, seconds=301)

    assert question_recovery.fail_stale_questions() == 1

    client.force_login(bob)
    polled = client.get(f"/api/ask/{orphan.pk}")
    assert polled.status_code == 200
    assert polled.json()["status"] == "error" and "interrompue" in polled.json()["error"]
    assert client.get(f"/api/ask/{answering.pk}").status_code == 202  # still being answered


def running_job(**fields) -> IngestJob:
    return IngestJob.objects.create(game=GameFactory(), status=IngestJob.Status.RUNNING, attempts=1, **fields)


def test_a_running_job_with_a_live_heartbeat_is_left_alone(settings):
    settings.INGEST_STALE_AFTER_S = 60
    job = running_job()
    age(IngestJob, job.pk, minutes=30)  # a long LLM step without progress rows
    job_recovery.beat(job.pk)

    assert job_recovery.requeue_orphaned_jobs() == {"requeued": 0, "failed": 0, "cancelled": 0}
    job.refresh_from_db()
    assert job.status == IngestJob.Status.RUNNING


def test_a_job_that_killed_its_worker_too_often_fails_with_a_message(settings):
    settings.INGEST_STALE_AFTER_S = 60
    settings.INGEST_MAX_ATTEMPTS = 3
    job = running_job(pdf_path="pdfs/bomb.pdf")
    IngestJob.objects.filter(pk=job.pk).update(attempts=3)
    age(IngestJob, job.pk, minutes=5)

    assert job_recovery.requeue_orphaned_jobs() == {"requeued": 0, "failed": 1, "cancelled": 0}

    job.refresh_from_db()
    assert job.status == IngestJob.Status.ERROR and "3 fois" in job.error
    assert job.events.last().event == "error"


def test_heartbeat_is_refreshed_while_the_job_runs_and_cleared_after(settings):
    settings.INGEST_HEARTBEAT_S = 0.05
    with job_recovery.job_heartbeat("job-x"):
        first = cache.get(job_recovery.heartbeat_key("job-x"))
        import time

        time.sleep(0.3)
        assert cache.get(job_recovery.heartbeat_key("job-x")) > first
    assert cache.get(job_recovery.heartbeat_key("job-x")) is None


@pytest.mark.slow
def test_job_of_a_killed_worker_is_requeued_and_resumes_from_its_ocr_cache(tmp_path, settings, monkeypatch):
    settings.OCR_CONCURRENCY = 1
    settings.INGEST_STALE_AFTER_S = 60
    words = ["alpha", "bravo", "charlie", "delta", "echo"]
    pdf = scanned_pdf(tmp_path / "scan.pdf", [[f"Page {w} du livret", f"mot clef {w}"] for w in words], tmp_path)
    job = services.create_ingest(pdf_path_or_file=pdf, new_game_name="Scan")
    real_recognise, calls = ocr.recognise, []

    def killed_on_fifth_page(image_path, languages):
        if len(calls) == 4:
            raise SystemExit("SIGKILL")  # not an Exception: nothing in the worker handles it
        calls.append(image_path.name)
        return real_recognise(image_path, languages)

    monkeypatch.setattr(ocr, "recognise", killed_on_fifth_page)
    with pytest.raises(SystemExit):
        run_job(str(job.pk))
    job.refresh_from_db()
    assert job.status == IngestJob.Status.RUNNING  # what a killed worker leaves behind
    cached = json.loads((settings.INGEST_CACHE_DIR / "ocr-v2-scan.json").read_text())["pages"]
    assert len(cached) >= 3  # saved every 3 pages (and flushed on the way out when it can be)

    calls.clear()
    monkeypatch.setattr(ocr, "recognise", lambda image, languages: calls.append(image.name) or real_recognise(image, languages))
    age(IngestJob, job.pk, minutes=3)
    assert job_recovery.sweep()["requeued"] == 1  # Q_SYNC: the requeued job runs right here

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert job.attempts == 2
    assert calls == [f"page-{n:02d}.png" for n in range(1, 6) if str(n) not in cached]  # the rest: cache
    assert job.stats["ocr"]["from_cache"] == len(cached)
    assert any("reprend" in e.data["message"] for e in job.events.filter(event="warning"))


def test_an_old_question_still_answered_by_a_live_process_is_left_alone(settings):
    """Queued behind ASK_MAX_CONCURRENT_ANSWERS slow LLM answers, a question may be old and alive."""
    settings.ASK_STALE_AFTER_S = 300
    waiting = QuestionFactory()
    age(Question, waiting.pk, seconds=900)

    with question_recovery.answering(waiting.pk):
        assert question_recovery.fail_stale_questions() == 0
    assert question_recovery.fail_stale_questions() == 1  # its process is gone: no one vouches any more


def test_the_sweep_runs_when_a_worker_starts_not_around_every_inline_task(client, bob, settings):
    """django-q2's sync mode (Q_SYNC) sends post_spawn from the calling process for every
    task: that is no worker start, and must not fail questions or requeue jobs mid-request."""
    from django_q.signals import post_spawn
    from django_q.tasks import async_task

    settings.ASK_STALE_AFTER_S = 300
    orphan = QuestionFactory(user=bob)
    age(Question, orphan.pk, seconds=301)
    client.force_login(bob)

    async_task("math.floor", 1.5, sync=True)  # any task run inline, here in "MainProcess"
    assert client.get(f"/api/ask/{orphan.pk}").status_code == 202  # still pending: no sweep ran

    post_spawn.send(sender="django_q", proc_name="Process-1")  # a real cluster worker starts
    polled = client.get(f"/api/ask/{orphan.pk}")
    assert polled.status_code == 200 and polled.json()["status"] == "error"


def test_a_question_whose_process_stopped_is_failed_at_the_next_sweep_whatever_its_age(settings):
    """A restart: the mark of the process that died still lives in the shared cache, but names
    a process that no longer runs; the new process's first sweep fails its question at once."""
    settings.ASK_STALE_AFTER_S = 300
    orphan, answered_here = QuestionFactory(), QuestionFactory()
    dead = subprocess.run([sys.executable, "-c", "from runtime.process_identity import this_process; print(this_process())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    flags.raise_flag(answers.key(orphan.pk, "in-flight"), 600, dead)

    with question_recovery.answering(answered_here.pk):
        assert question_recovery.fail_stale_questions() == 1

    orphan.refresh_from_db()
    assert orphan.status == Question.Status.ERROR and "interrompue" in orphan.error
    assert Question.objects.get(pk=answered_here.pk).status == Question.Status.PENDING


def test_a_mark_of_another_machine_is_not_judged_but_lives_out_its_ttl(settings):
    settings.ASK_STALE_AFTER_S = 300
    elsewhere = QuestionFactory()
    age(Question, elsewhere.pk, seconds=900)
    flags.raise_flag(answers.key(elsewhere.pk, "in-flight"), 600, "another-boot/pid:[1]:4242:1")

    assert question_recovery.fail_stale_questions() == 0
