"""Step 1: the uploaded PDF under PDF_DIR as `<slug>-<timestamp>.pdf`."""

from __future__ import annotations

import shutil
from pathlib import Path

from django.conf import settings
from django.utils import timezone


def store_pdf(source, slug: str) -> Path:
    """Copy `source` (a path, bytes or a file object) and return the stored path."""
    folder = Path(settings.PDF_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    target = folder / f"{slug}-{stamp}.pdf"
    if target.exists():  # two uploads of one booklet within a second
        target = folder / f"{slug}-{timezone.now().strftime('%Y%m%d-%H%M%S-%f')}.pdf"
    if isinstance(source, (bytes, bytearray)):
        target.write_bytes(source)
    elif isinstance(source, (str, Path)):
        shutil.copyfile(source, target)
    else:
        if hasattr(source, "seek"):
            source.seek(0)
        with open(target, "wb") as out:
            chunks = source.chunks() if hasattr(source, "chunks") else iter(lambda: source.read(1 << 20), b"")
            for block in chunks:
                out.write(block)
    return target


def media_relative(path: Path) -> str:
    return str(Path(path).resolve().relative_to(Path(settings.MEDIA_ROOT).resolve()))
