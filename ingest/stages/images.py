"""Step 11: every page as a 300 DPI PNG in the booklet's image folder (the page shown
with a citation and given to the LLM). Idempotent: pages already rendered from this PDF
(by OCR) are skipped. A failure only warns: the booklet stays searchable."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from rag.page_images import page_image_path

from .ocr import is_rendered, render_page


def render_pages(
    pdf_path: Path,
    page_count: int,
    images_dir: Path,
    *,
    dpi: int = 300,
    workers: int = 2,
    on_page: Callable[[int, int], None] = lambda done, total: None,
) -> int:
    """Render the missing pages (pdftoppm, one page per call, `workers` at a time);
    returns how many were rendered now."""
    missing = [n for n in range(1, page_count + 1) if not is_rendered(page_image_path(images_dir, n), pdf_path)]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for done, _ in enumerate(pool.map(lambda n: render_page(pdf_path, n, images_dir, dpi), missing), start=1):
            on_page(done, len(missing))
    return len(missing)
