"""django-q2 tasks of the ingest app (arguments are primary keys, never instances)."""

import logging

from .coordinator import run_job
from .models import IngestJob

log = logging.getLogger(__name__)


def run_ingest_job(job_id: str) -> None:
    if not IngestJob.objects.filter(pk=job_id).exists():
        log.info("ingest %s: gone with its booklet while it waited", job_id)
        return
    run_job(job_id)
