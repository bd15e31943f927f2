"""Putting an ingest job in the django-q2 queue.

The task path is stored in the queue's rows (`OrmQ`, Redis): keep it where it is, or a job
queued before an upgrade would never start."""

from __future__ import annotations

from .models import IngestJob

RUN_INGEST_TASK = "ingest.tasks.run_ingest_job"  # stored in queued tasks: keep the path


def enqueue(job: IngestJob) -> None:
    from django_q.tasks import async_task

    async_task(RUN_INGEST_TASK, str(job.pk), task_name=f"ingest-{job.pk}", group="ingest")
