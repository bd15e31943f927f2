"""Running an ingest to its end inside a test (django-q2 runs tasks inline under pytest)."""

from __future__ import annotations

from ingest import services
from ingest.models import IngestJob


def ingest_inline(path, *, expect_done: bool = True, **kwargs) -> IngestJob:
    """Create and run the ingest of `path`; the job as it ended (DONE unless `expect_done` is off)."""
    job = services.create_ingest(pdf_path_or_file=path, **kwargs)
    services.enqueue(job)
    job.refresh_from_db()
    if expect_done:
        assert job.status == IngestJob.Status.DONE, job.error
    return job
