"""A PDF the admin's upload form refused for a reason that is not the file (its booklet has
a job scheduled, queued or running): kept under MEDIA_ROOT/held/ so the form comes back with
it, since a browser never fills a file field again. The form names it by a random token;
held files older than HELD_TTL_S are removed when another is held."""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path

from django.conf import settings

HELD_TTL_S = 24 * 3600
_TOKEN_RE = re.compile(r"[0-9a-f]{32}")


def _folder() -> Path:
    return Path(settings.MEDIA_ROOT) / "held"


def hold(upload) -> str:
    """Copy an uploaded file aside; returns its token."""
    folder = _folder()
    folder.mkdir(parents=True, exist_ok=True)
    _expire(folder)
    token = secrets.token_hex(16)
    with open(folder / f"{token}.pdf", "wb") as out:
        for block in upload.chunks():
            out.write(block)
    (folder / f"{token}.name").write_text(Path(upload.name or "livret.pdf").name[:200], encoding="utf-8")
    return token


def held(token: str | None) -> tuple[Path, str] | None:
    """(path, the file's name as uploaded) of a held file, None for an unknown or expired token."""
    if not token or not _TOKEN_RE.fullmatch(token):
        return None
    path = _folder() / f"{token}.pdf"
    try:
        if path.stat().st_mtime < time.time() - HELD_TTL_S:
            return None  # expired; the next `hold` deletes it
    except OSError:
        return None
    name_file = path.with_suffix(".name")
    return path, name_file.read_text(encoding="utf-8") if name_file.exists() else path.name


def release(token: str | None) -> None:
    """Forget a held file once its ingestion stored its own copy."""
    if token and _TOKEN_RE.fullmatch(token):
        for suffix in (".pdf", ".name"):
            (_folder() / f"{token}{suffix}").unlink(missing_ok=True)


def _expire(folder: Path) -> None:
    old = time.time() - HELD_TTL_S
    for path in folder.iterdir():
        try:
            if path.stat().st_mtime < old:
                path.unlink()
        except OSError:
            pass  # removed by another request meanwhile
