"""« Relancer » after a cancel that the job never acknowledged: the admin cancelled a running
job during a step with no checkpoint (the LLM outline, the conflict classification), that
step then failed, and the job ended in `error` with the cancel request still standing (24 h).
The relaunched job stopped at its first checkpoint, « annulée à la demande d'un
administrateur », though nobody had cancelled it."""

import pytest

from ingest import services
from ingest.cancellation import request_cancel
from ingest.models import IngestJob
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def test_a_relaunch_is_not_cancelled_by_a_cancel_asked_of_the_run_before(tmp_path):
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    job.transition(IngestJob.Status.RUNNING)
    assert request_cancel(job) == "requested"  # the worker is inside a step without a checkpoint
    job.transition(IngestJob.Status.ERROR, error="Le plan du livret a échoué.")  # …which then fails

    assert services.retry(job)  # Q_SYNC: the relaunched job runs here

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert job.chunks.exists()
