"""The ingestion side of the demo game (games/demo/loader.py creates its rows): which demo
booklets still need reading, and queuing one."""

from __future__ import annotations

from pathlib import Path

from games.models import Booklet

from . import services
from .models import IngestJob

# A job in one of these states already covers the booklet: queuing another would ingest it twice.
COVERING_JOB_STATES = ("scheduled", "queued", "running", "done")


def needs_ingest(booklet: Booklet) -> bool:
    """No chunks and no scheduled, queued, running or finished job (a failed one is retried)."""
    if booklet.chunks().exists():
        return False
    jobs = IngestJob.objects.filter(game=booklet.game, extension=booklet.extension)
    return not jobs.filter(status__in=COVERING_JOB_STATES).exists()


def queue_ingest(booklet: Booklet, pdf: Path, spec: dict) -> IngestJob:
    # create_ingest finds the existing booklet row by name and kind, so the demo's slugs are kept.
    job = services.create_ingest(
        pdf_path_or_file=pdf,
        game=booklet.game,
        kind=spec["kind"],
        name=spec["name"],
        language=spec["language"],
    )
    services.enqueue(job)
    return job
