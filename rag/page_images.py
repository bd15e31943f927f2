"""The PNG of a booklet page: the name the renderer writes (`page_image_path`,
`page-01.png`), and finding it again whatever the zero padding (`page-1.png`, `page-01.png`,
`page-001.png`: pdftoppm pads to the width of the page count).

Each folder is listed once and its {page → file} map cached; the cache is dropped when the
folder changes (its mtime moves when pages are re-rendered) or when the renderer calls
`invalidate(folder)` explicitly.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

_PAGE_RE = re.compile(r"^(?:page|[\w.-]*?)-0*(\d+)\.png$", re.IGNORECASE)



def page_image_path(images_dir: str | Path, page: int) -> Path:
    """Where the image of `page` (1-based) is rendered in a booklet's images folder."""
    return Path(images_dir) / f"page-{page:02d}.png"


_cache: dict[Path, tuple[int, dict[int, str]]] = {}
_lock = threading.Lock()


def _scan(folder: Path) -> dict[int, str]:
    pages: dict[int, str] = {}
    for entry in sorted(folder.iterdir()):
        match = _PAGE_RE.match(entry.name)
        if match and entry.is_file():
            pages.setdefault(int(match.group(1)), entry.name)
    return pages


def page_map(folder: str | Path) -> dict[int, str]:
    folder = Path(folder)
    try:
        stamp = folder.stat().st_mtime_ns
    except FileNotFoundError:
        return {}
    with _lock:
        cached = _cache.get(folder)
        if cached and cached[0] == stamp:
            return cached[1]
    pages = _scan(folder)
    with _lock:
        _cache[folder] = (stamp, pages)
    return pages


def resolve_page_image(folder: str | Path, page: int) -> Path | None:
    """The image of `page` (1-based) in `folder`, or None when it was never rendered."""
    name = page_map(folder).get(int(page))
    if name is None:
        return None
    path = Path(folder) / name
    if not path.exists():  # deleted since the scan, within the same mtime tick
        invalidate(folder)
        name = page_map(folder).get(int(page))
        return Path(folder) / name if name else None
    return path


def invalidate(folder: str | Path | None = None) -> None:
    """Forget one folder's map (after a new render) or every map."""
    with _lock:
        if folder is None:
            _cache.clear()
        else:
            _cache.pop(Path(folder), None)
