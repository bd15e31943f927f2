"""Page images rendered through pdf2image (poppler), on first need.

Only a vision-capable LLM reads a page image, and it reads one per answer: rendering every
page at ingestion cost the 258-page Comprehensive Rules 54 s and 186 MB for nothing when no
LLM is configured. So a page is rendered when the answer step first asks for it, then kept.

Two askers of one page (threads of the web process, or the web process and a
`prerender_pages` command) render it once: each page has a lock file (`flock`, released by
the kernel if a process dies), the image is checked again under the lock, and written under
a temporary name then renamed, so a half-written PNG is never taken for a page.

Plain Python: the caller passes a `LazyRenderer` (where a booklet's PDF is, at which DPI:
runtime.components.page_renderer).
"""

from __future__ import annotations

import fcntl
import logging
import math
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from pdf2image import convert_from_path, pdfinfo_from_path
from PIL import Image

from . import page_images
from .page_images import page_image_path

log = logging.getLogger(__name__)

PNG_COMPRESS_LEVEL = 1  # PNG's default level costs ~15x the rendering itself, for ~20 % fewer bytes
RENDER_TIMEOUT_S = 300
# An A4 page at 300 DPI is 8.7 Mpx; a page the PDF guard lets through (3500 pt a side) would be
# 200 Mpx, over a gigabyte in the web process and in pdftoppm, for any reader who asks for it.
MAX_PAGE_PIXELS = 25_000_000
PAGE_SIZE_RE = re.compile(r"([\d.]+) x ([\d.]+) pts")


class PageRenderError(RuntimeError):
    """poppler could not render the page (broken PDF, page out of range)."""


def is_fresh(image: Path, pdf_path: Path | None) -> bool:
    """An image rendered from this very PDF file (not from a previous upload of the booklet)."""
    if not image.exists():
        return False
    return pdf_path is None or image.stat().st_mtime >= Path(pdf_path).stat().st_mtime


@contextmanager
def _page_lock(target: Path) -> Iterator[None]:
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = target.with_name(f".{target.stem}.lock")
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _save(image: Image.Image, target: Path) -> None:
    partial = target.with_name(f".{target.stem}-{os.getpid()}-rendering.png")
    image.save(partial, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    partial.replace(target)  # atomic: readers see no image or the whole image


def _convert(pdf_path: Path, first: int, last: int, dpi: int, threads: int) -> list[Image.Image]:
    try:
        return convert_from_path(
            str(pdf_path), dpi=dpi, first_page=first, last_page=last, thread_count=max(1, threads),
            timeout=RENDER_TIMEOUT_S,
        )
    except Exception as exc:  # pdf2image raises its own and poppler's errors
        raise PageRenderError(f"pages {first}-{last} of {Path(pdf_path).name}: {_one_line(exc)}") from exc


def capped_dpi(pdf_path: Path, first: int, last: int, dpi: int) -> int:
    """`dpi`, lowered so that no page from `first` to `last` renders to more than
    MAX_PAGE_PIXELS (poppler's pdfinfo reads the pages' sizes, not their content)."""
    try:
        info = pdfinfo_from_path(str(pdf_path), first_page=first, last_page=last)
    except Exception as exc:  # a truncated PDF: as _convert's errors
        raise PageRenderError(f"{Path(pdf_path).name}: {_one_line(exc)}") from exc
    for key, value in info.items():
        size = PAGE_SIZE_RE.search(str(value)) if key.endswith(" size") else None
        if size:
            square_inches = float(size[1]) * float(size[2]) / 72**2
            dpi = min(dpi, max(1, math.floor(math.sqrt(MAX_PAGE_PIXELS / max(square_inches, 1e-6)))))
    return dpi


def render_page(pdf_path: Path, page: int, target: Path, dpi: int) -> Path:
    """Render one page to `target` (once, whoever else asks at the same time), at `dpi` or
    less for a page too large (`capped_dpi`)."""
    target = Path(target)
    with _page_lock(target):
        if is_fresh(target, pdf_path):
            return target  # another asker rendered it while we waited for the lock
        images = _convert(pdf_path, page, page, capped_dpi(pdf_path, page, page, dpi), 1)
        if not images:
            raise PageRenderError(f"page {page} of {Path(pdf_path).name}: poppler returned no image")
        _save(images[0], target)
    page_images.invalidate(target.parent)
    return target


def page_count(pdf_path: Path) -> int:
    try:
        return int(pdfinfo_from_path(str(pdf_path))["Pages"])
    except Exception as exc:  # a truncated PDF: pdf2image's PDFPageCountError, as _convert's errors
        raise PageRenderError(f"{Path(pdf_path).name}: {_one_line(exc)}") from exc


def _one_line(exc: Exception) -> str:
    """poppler's stderr, which pdf2image puts in its errors, repeats lines: once each, on one line."""
    return " ".join(dict.fromkeys(line.strip() for line in str(exc).splitlines() if line.strip()))


def render_all(
    pdf_path: Path, folder: Path, *, dpi: int, threads: int,
    on_page: Callable[[int, int], None] = lambda done, total: None,
) -> int:
    """Pre-render every missing page, `threads` pdftoppm processes at a time (and never more
    than `threads` pages in memory); returns how many pages were rendered now."""
    total = page_count(pdf_path)
    missing = [n for n in range(1, total + 1) if not is_fresh(page_image_path(folder, n), pdf_path)]
    step = max(1, threads)
    for start in range(0, len(missing), step):
        run = missing[start : start + step]
        first, last = run[0], run[-1]
        # not contiguous, or a page too large for `dpi` among them (it would lower the others'): page by page
        if last - first + 1 != len(run) or capped_dpi(pdf_path, first, last, dpi) < dpi:
            for number in run:
                render_page(pdf_path, number, page_image_path(folder, number), dpi)
        else:
            for number, image in zip(range(first, last + 1), _convert(pdf_path, first, last, dpi, step)):
                target = page_image_path(folder, number)
                with _page_lock(target):
                    if not is_fresh(target, pdf_path):
                        _save(image, target)
        on_page(min(start + step, len(missing)), len(missing))
    page_images.invalidate(folder)
    return len(missing)


@dataclass(frozen=True)
class LazyRenderer:
    """What `ensure_page_image` needs: where a booklet's PDF is, and how to render. Without a
    source, only the images already rendered are found."""

    source: Callable[[Path], Path | None] | None = None  # images folder -> its booklet's PDF
    dpi: int = 300


_failed: dict[tuple[str, int], float] = {}  # (folder, page) -> the PDF's mtime when poppler failed on it
MAX_FAILURES_KEPT = 10_000


def _to_render(folder: Path, page: int, renderer: LazyRenderer) -> tuple[Path | None, Path | None]:
    """(the image there is, the PDF to render it from now or None): None to render from when
    there is no PDF, the image is fresh, or poppler failed on this version of the page (it is
    not tried again until its PDF changes: each try ran pdftoppm again, for any reader)."""
    existing = page_images.resolve_page_image(folder, page)
    pdf_path = renderer.source(folder) if renderer.source else None
    if pdf_path is None or not Path(pdf_path).is_file() or (existing is not None and is_fresh(existing, pdf_path)):
        return existing, None
    if _failed.get((str(folder), page)) == Path(pdf_path).stat().st_mtime:
        return None, None
    return existing, Path(pdf_path)


def ensure_page_image(folder: str | Path, page: int, renderer: LazyRenderer,
                      before_render: Callable[[], None] | None = None) -> Path | None:  # fmt: skip
    """The page's image, rendered now if it never was (or was rendered from an older upload).
    None when the PDF is unknown or poppler fails: an answer is never lost for an image.
    `before_render`: called only when a render is about to run (what a caller counts against
    a render limit; an exception it raises stops the render)."""
    folder = Path(folder)
    existing, pdf_path = _to_render(folder, page, renderer)
    if pdf_path is None:
        return existing
    if before_render is not None:
        before_render()
    version = pdf_path.stat().st_mtime
    try:
        return render_page(pdf_path, page, page_image_path(folder, page), renderer.dpi)
    except (PageRenderError, OSError) as exc:
        log.warning("page image %s p.%d not rendered: %s", folder.name, page, exc)
        if len(_failed) >= MAX_FAILURES_KEPT:
            _failed.clear()
        _failed[(str(folder), page)] = version
        return None
