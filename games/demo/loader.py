"""Create the demo game « Les Aéronautes » and its booklets, and hand them to the ingestion.

Idempotent: rows are found by slug. The catalogue knows no workflow: the caller
(`manage.py load_demo`, in ingest) passes what says whether a booklet still needs reading
and what queues it (`ingest/demo.py`); without them the booklets only get their PDFs.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from django.core.files import File
from django.db import transaction
from pdfminer.pdfpage import PDFPage

from games.models import Booklet, Extension, Game

log = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).resolve().parent


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


def load_demo(
    *,
    needs_ingest: Callable[[Booklet], bool] | None = None,
    queue_ingest: Callable[[Booklet, Path, dict], object] | None = None,
) -> DemoResult:
    """Create what is missing; with `queue_ingest`, queue (`queue_ingest(booklet, pdf, spec)`)
    the booklets for which `needs_ingest(booklet)` is true."""
    manifest = read_manifest()
    with transaction.atomic():
        game, created = ensure_game(manifest["game"])
        result = DemoResult(game=game, created=[game.slug] if created else [])
        for spec in manifest["booklets"][1:]:
            if ensure_extension(game, spec)[1]:
                result.created.append(spec["slug"])
    for spec in manifest["booklets"]:
        booklet = _booklet(game, spec["slug"])
        if queue_ingest is None:
            attach_pdf(booklet.owner, spec)
        elif needs_ingest is None or needs_ingest(booklet):
            try:
                queue_ingest(booklet, demo_pdf(spec), spec)
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
