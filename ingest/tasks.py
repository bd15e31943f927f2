"""django-q2 tasks of the ingest app (arguments are primary keys, never instances)."""

from .coordinator import run_job


def run_ingest_job(job_id: str) -> None:
    run_job(job_id)
