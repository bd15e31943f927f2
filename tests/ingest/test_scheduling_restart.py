"""A scheduled ingest survives a restart of the processes: real `manage.py qcluster`
processes against the test database, stopped and started again around the start time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from ingest import services
from ingest.models import IngestJob
from ingest.quota_pause import pending_schedule
from ingest.scheduling import schedule_ingest
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf
from tests.support.daphne import BASE_DIR, database_url

pytestmark = [pytest.mark.slow]


def start_qcluster(settings, tmp_path: Path, name: str) -> tuple[subprocess.Popen, Path]:
    from django.db import connection

    log_path = tmp_path / f"{name}.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "oracle_site.settings",
        "DATABASE_URL": database_url(connection.settings_dict),
        "SECRET_KEY": settings.SECRET_KEY,
        "ORACLE_VAR_DIR": str(tmp_path / "worker-var"),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "QDRANT_PATH": str(settings.QDRANT_PATH),
        "Q_POLL_S": "0.2",
        "PYTHONPATH": str(BASE_DIR),
        "OMP_WAIT_POLICY": "PASSIVE",
        "EMBEDDINGS_THREADS": "1",
    }
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    return process, log_path


def wait_for(predicate, timeout: float, what: str, log_path: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} not seen within {timeout} s:\n{log_path.read_text()[-3000:]}")


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_a_scheduled_ingest_survives_a_worker_restart_and_starts_once_its_time_passed(
    transactional_db, settings, tmp_path
):
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    when = timezone.now() + timedelta(seconds=8)
    schedule_ingest(job, when)

    first, first_log = start_qcluster(settings, tmp_path, "qcluster-1")
    try:
        wait_for(lambda: b"[oracle]" in first_log.read_bytes(), 60, "first cluster", first_log)
        job.refresh_from_db()
        assert job.status == IngestJob.Status.SCHEDULED  # not before its time
    finally:
        stop(first)  # Oracle goes down before the start time…

    remaining = (when - timezone.now()).total_seconds()
    time.sleep(max(0.0, remaining) + 1)  # …and stays down while it passes
    assert IngestJob.objects.get(pk=job.pk).status == IngestJob.Status.SCHEDULED

    second, second_log = start_qcluster(settings, tmp_path, "qcluster-2")
    try:
        wait_for(
            lambda: IngestJob.objects.get(pk=job.pk).is_finished, 120, "the ingestion finishing", second_log
        )
    finally:
        stop(second)

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert job.started_at >= when
    assert job.stats["chunks"] > 0
    assert pending_schedule(job) is None
