"""Create the demo game « Les Aéronautes » and its booklets, and queue their ingestion.

Idempotent: rows are found by slug, and a booklet is queued only when it has no chunks and
no scheduled, queued, running or finished job. `manage.py load_demo` calls `load_demo()`.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from django.core.files import File
from django.db import transaction
from pdfminer.pdfpage import PDFPage

from games.models import Booklet, Extension, Game

log = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).resolve().parent
# A job in one of these states already covers the booklet: queuing another would ingest it twice.
COVERING_JOB_STATES = ("scheduled", "queued", "running", "done")


@dataclass
class DemoResult:
    game: Game
    created: list[str] = field(default_factory=list)
    queued: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def read_manifest() -> dict:
    return json.loads((DEMO_DIR / "manifest.json").read_text(encoding="utf-8"))


def demo_pdf(spec: dict) -> Path:
    return DEMO_DIR / spec["file"]


def load_demo(*, ingest: bool = True) -> DemoResult:
    """Create what is missing; queue the ingestion of booklets not yet ingested when the
    ingestion pipeline is installed and `ingest` is true."""
    manifest = read_manifest()
    services = _ingest_services() if ingest else None
    with transaction.atomic():
        game, created = ensure_game(manifest["game"])
        result = DemoResult(game=game, created=[game.slug] if created else [])
        for spec in manifest["booklets"][1:]:
            if ensure_extension(game, spec)[1]:
                result.created.append(spec["slug"])
    for spec in manifest["booklets"]:
        booklet = _booklet(game, spec["slug"])
        if services is None:
            attach_pdf(booklet.owner, spec)
        elif needs_ingest(booklet):
            try:
                queue_ingest(services, booklet, spec)
            except Exception:  # noqa: BLE001 - a demo booklet that cannot be queued must not stop the site
                log.exception("demo booklet %s could not be queued", spec["slug"])
                result.failed.append(spec["slug"])
            else:
                result.queued.append(spec["slug"])
        else:
            result.skipped.append(spec["slug"])
    return result


def ensure_game(spec: dict) -> tuple[Game, bool]:
    return Game.objects.get_or_create(
        slug=spec["slug"],
        defaults={
            "name": spec["name"],
            "language": spec["language"],
            "booklet_name": spec["booklet_name"],
            "description": spec["description"],
        },
    )


def ensure_extension(game: Game, spec: dict) -> tuple[Extension, bool]:
    return Extension.objects.get_or_create(
        slug=spec["slug"],
        defaults={"game": game, "name": spec["name"], "kind": spec["kind"], "language": spec["language"]},
    )


def needs_ingest(booklet: Booklet) -> bool:
    from ingest.models import IngestJob

    if booklet.chunks().exists():
        return False
    jobs = IngestJob.objects.filter(game=booklet.game, extension=booklet.extension)
    return not jobs.filter(status__in=COVERING_JOB_STATES).exists()


def queue_ingest(services, booklet: Booklet, spec: dict):
    # create_ingest finds the existing booklet row by name and kind, so our slugs are kept.
    job = services.create_ingest(
        pdf_path_or_file=demo_pdf(spec),
        game=booklet.game,
        kind=spec["kind"],
        name=spec["name"],
        language=spec["language"],
    )
    services.enqueue(job)
    return job


def attach_pdf(owner: Game | Extension, spec: dict) -> None:
    """Without ingestion, still give the booklet its PDF so the admin and viewer show it."""
    if owner.pdf:
        return
    path = demo_pdf(spec)
    with path.open("rb") as handle:
        owner.pdf.save(path.name, File(handle), save=False)
        handle.seek(0)
        owner.pdf_pages = sum(1 for _ in PDFPage.get_pages(handle))
    owner.save(update_fields=["pdf", "pdf_pages", "updated_at"])


def _booklet(game: Game, slug: str) -> Booklet:
    if slug == game.slug:
        return game.base_booklet
    return Extension.objects.select_related("game").get(slug=slug).booklet


def _ingest_services():
    """The ingestion pipeline's entry points, or None when it is not installed."""
    try:
        from ingest import services
    except ImportError:
        return None
    if not (hasattr(services, "create_ingest") and hasattr(services, "enqueue")):
        return None
    return services
