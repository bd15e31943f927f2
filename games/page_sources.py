"""Where a booklet's page images come from: its stored PDF, rendered on first need
(rag.page_render). The answer step only knows a booklet's images folder; this maps the
folder back to the booklet whose slug names it."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from .models import Booklet, Extension, Game


def booklet_by_slug(slug: str) -> Booklet | None:
    extension = Extension.objects.select_related("game").filter(slug=slug).first()
    if extension is not None:
        return extension.booklet
    game = Game.objects.filter(slug=slug).first()
    return game.base_booklet if game is not None else None


def pdf_of(booklet: Booklet) -> Path | None:
    if not booklet.pdf:
        return None
    path = Path(settings.MEDIA_ROOT) / booklet.pdf.name
    return path if path.is_file() else None


def pdf_served(booklet: Booklet, *, staff: bool) -> Path | None:
    """The booklet's PDF as a reader may fetch it or see its pages: stored, and read (it has
    rules) unless the caller is staff. A first upload waiting for its reading, or one the PDF
    guard refused as unsafe, is neither handed out nor rendered for players."""
    path = pdf_of(booklet)
    return path if path is not None and (staff or booklet.chunks().exists()) else None


def pdf_for_images_dir(folder: Path) -> Path | None:
    """The PDF whose pages `folder` (PAGE_IMAGES_DIR/<slug>) holds, or None."""
    if Path(folder).parent != Path(settings.PAGE_IMAGES_DIR):
        return None
    booklet = booklet_by_slug(Path(folder).name)
    return pdf_of(booklet) if booklet is not None else None
