"""Many things at once on the configured database (SQLite and, in CI, PostgreSQL): two
ingests and fifty questions together, racing status transitions and progress updates.
No lost update: every job ends with every act's progress, every question is answered."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from ingest import services
from ingest.coordinator import run_job
from ingest.models import IngestJob
from questions.models import Question
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from tests.factories import ExtensionFactory, GameFactory, IngestJobFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def in_thread(fn):
    """Run fn with the thread's own connection, closed afterwards (as a web/worker thread)."""

    def run(*args):
        try:
            return fn(*args)
        finally:
            connection.close()

    return run


def test_only_one_of_many_racing_workers_starts_a_job():
    job = IngestJobFactory(status=IngestJob.Status.QUEUED)
    barrier = threading.Barrier(12)

    @in_thread
    def start(_):
        barrier.wait()
        return IngestJob.objects.get(pk=job.pk).transition(IngestJob.Status.RUNNING, allowed_from=(IngestJob.Status.QUEUED,))

    with ThreadPoolExecutor(12) as pool:
        won = list(pool.map(start, range(12)))
    assert won.count(True) == 1


def test_concurrent_progress_updates_of_one_job_are_all_kept():
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)
    acts = [f"act{i}" for i in range(16)]
    barrier = threading.Barrier(len(acts))

    @in_thread
    def report(act):
        barrier.wait()
        IngestJob.objects.get(pk=job.pk).set_progress(act, done=1, total=1)

    with ThreadPoolExecutor(len(acts)) as pool:
        list(pool.map(report, acts))
    job.refresh_from_db()
    assert sorted(job.progress) == sorted(acts)


@pytest.mark.slow
def test_two_ingests_and_fifty_questions_at_once(tmp_path):
    from tests.rag.corpus import create_chunk_rows

    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    jobs = [
        services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / f"{name}.pdf", LOREM_RULES), new_game_name=name)
        for name in ("Heat", "Flamme Rouge")
    ]
    questions = [create_question(game=game, text=f"Peut-on jouer une carte Boost ? ({n})") for n in range(50)]
    barrier = threading.Barrier(len(jobs) + len(questions))

    @in_thread
    def ingest(job):
        barrier.wait()
        run_job(str(job.pk))

    @in_thread
    def ask(question):
        barrier.wait()
        answer_question(question.pk, lambda name, data: None)

    with ThreadPoolExecutor(len(jobs) + len(questions)) as pool:
        futures = [pool.submit(ingest, job) for job in jobs] + [pool.submit(ask, q) for q in questions]
        for future in futures:
            future.result(timeout=600)

    for job in IngestJob.objects.filter(pk__in=[j.pk for j in jobs]):
        assert job.status == IngestJob.Status.DONE, job.error
        assert {"read", "chunk", "embed", "index"} <= set(job.progress)
        assert all(p["done"] == p["total"] for p in job.progress.values())
        assert job.events.filter(event="done").count() == 1
    statuses = list(Question.objects.filter(pk__in=[q.pk for q in questions]).values_list("status", "error"))
    assert statuses == [(Question.Status.DONE, "")] * 50
