"""A cancel asked while the worker is in a step without a checkpoint (the LLM outline, the
conflict classification: minutes). Before the rules are swapped the job stops, and a cancel
the run never saw does not stop the next « Relancer »."""

import pytest

from ingest import services
from ingest.cancellation import request_cancel
from ingest.models import IngestJob
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def test_a_relaunch_is_not_cancelled_by_a_cancel_asked_of_the_run_before(tmp_path):
    """The step then failed: the job ended in `error` with the cancel still standing (24 h), and
    the relaunched run stopped at its first checkpoint, « annulée à la demande d'un
    administrateur », though nobody had cancelled it."""
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    job.transition(IngestJob.Status.RUNNING)
    assert request_cancel(job) == "requested"  # the worker is inside a step without a checkpoint
    job.transition(IngestJob.Status.ERROR, error="Le plan du livret a échoué.")  # …which then fails

    assert services.retry(job)  # Q_SYNC: the relaunched job runs here

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert job.chunks.exists()


def test_a_cancel_asked_during_conflict_detection_stops_the_job_before_its_rules_are_swapped(tmp_path, monkeypatch):
    """Conflict detection (the LLM's classification of an expansion's chunks, minutes) has no
    checkpoint inside: a cancel asked meanwhile was answered « requested », then the job went
    on, replaced the booklet's rules and ended `done`."""
    from games.models import Chunk
    from ingest.coordinator import Pipeline

    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    detect = Pipeline.detect_conflicts

    def cancelled_meanwhile(pipeline, drafts, dense, sparse):
        assert request_cancel(IngestJob.objects.get(pk=job.pk)) == "requested"
        return detect(pipeline, drafts, dense, sparse)

    monkeypatch.setattr(Pipeline, "detect_conflicts", cancelled_meanwhile)

    services.enqueue(job)  # Q_SYNC: runs here

    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED
    assert not Chunk.objects.filter(game=job.game).exists()


def test_a_job_whose_worker_died_after_a_cancel_ends_cancelled_not_requeued(tmp_path):
    """The recovery sweep requeued it; run after the cache's flag had expired (24 h), it went on
    to `done` though an administrator had cancelled it."""
    from datetime import timedelta

    from django.core.cache import cache
    from django.utils import timezone

    from ingest.cancellation import flag_key
    from ingest.recovery import requeue_orphaned_jobs

    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    job.transition(IngestJob.Status.RUNNING)
    assert request_cancel(job) == "requested"
    cache.delete(flag_key(job.pk))  # its worker died; a day later the flag is gone

    assert requeue_orphaned_jobs(now=timezone.now() + timedelta(days=1)) == {"requeued": 0, "failed": 0, "cancelled": 1}

    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED and not job.cancel_requested
    assert job.events.filter(event="error", data__cancelled=True).exists()
    assert not job.chunks.exists()
