"""Step 3: OCR of the pages that have no usable text layer.

`decide_ocr` keeps the reference's four outcomes from the average characters per page;
only the pages short of text are rendered (pdf2image, one page at a time, never all
images in memory) and read by tesseract in a pool of OCR_CONCURRENCY threads (each call
is its own tesseract process). Results go to a JSON cache saved every 3 pages, so a
killed worker resumes where it stopped.

Each page keeps tesseract's word boxes too (`OcrPage.words`), in PDF points from the page's
top-left corner, so the booklet viewer can highlight a quote on a page without a text layer.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import pytesseract
from PIL import Image

from rag import page_render

from rag.page_images import page_image_path

from .read import Page, Paragraph

log = logging.getLogger(__name__)

CACHE_VERSION = "ocr-v2"  # v2: word boxes
SAVE_EVERY = 3


@dataclass(frozen=True)
class OcrSettings:
    enabled: bool = True
    auto_threshold: int = 200
    page_min_chars: int = 40
    concurrency: int = 2
    languages: str = "fra+eng"
    min_confidence: float = 40.0
    dpi: int = 300


@dataclass(frozen=True)
class OcrDecision:
    """`outcome` is one of disabled | no_text | low_text | sufficient."""

    outcome: str
    average_chars: float
    pages: tuple[int, ...] = ()

    @property
    def should_ocr(self) -> bool:
        return bool(self.pages)


@dataclass
class OcrPage:
    """`words`: [x0, y0, x1, y1, text, line] per word, in the units of `width` × `height`
    (the page's size), from the top-left corner; `line` numbers the page's lines."""

    text: str
    confidence: float
    width: float = 0.0
    height: float = 0.0
    words: list = field(default_factory=list)

    def scaled(self, factor: float) -> "OcrPage":
        """The same reading in other units (image pixels × 72 / DPI = PDF points)."""
        words = [[round(v * factor, 1) for v in word[:4]] + word[4:] for word in self.words]
        return OcrPage(self.text, self.confidence, round(self.width * factor, 2), round(self.height * factor, 2), words)


@dataclass
class OcrResult:
    pages: dict[int, OcrPage] = field(default_factory=dict)
    from_cache: int = 0
    low_confidence: list[tuple[int, float]] = field(default_factory=list)  # (page, confidence)


def decide_ocr(pages: list[Page], config: OcrSettings) -> OcrDecision:
    """decideOCR: the document-level outcome and the pages to OCR.

    A broken text layer (`low_text`) OCRs every page under the average threshold; a
    booklet with enough text still OCRs the odd scanned page (under OCR_PAGE_MIN_CHARS).
    """
    counts = {page.number: page.char_count for page in pages}
    average = sum(counts.values()) / len(counts) if counts else 0.0
    if not config.enabled:
        return OcrDecision("disabled", average)
    if not any(counts.values()):
        return OcrDecision("no_text", average, tuple(counts))
    if average < config.auto_threshold:
        outcome, limit = "low_text", config.auto_threshold
    else:
        outcome, limit = "sufficient", config.page_min_chars
    return OcrDecision(outcome, average, tuple(n for n, count in counts.items() if count < limit))


def render_page(pdf_path: Path, page: int, images_dir: Path, dpi: int) -> Path:
    """One page to `page-XX.png`, through pdf2image (rag.page_render: locked, atomic)."""
    return page_render.render_page(pdf_path, page, page_image_path(images_dir, page), dpi)


def is_rendered(image: Path, pdf_path: Path) -> bool:
    """An image rendered from this very PDF file (not from a previous upload)."""
    return image.exists() and image.stat().st_mtime >= Path(pdf_path).stat().st_mtime


def recognise(image_path: Path, languages: str) -> OcrPage:
    """tesseract on one page image: text by paragraph, the mean word confidence and the
    words' boxes (in image pixels)."""
    # A path, not a PIL image: pytesseract would re-encode the image before calling tesseract.
    data = pytesseract.image_to_data(str(image_path), lang=languages, output_type=pytesseract.Output.DICT)
    paragraphs: dict[tuple, list[str]] = {}
    lines: dict[tuple, int] = {}
    confidences = []
    boxes = []
    for i, word in enumerate(data["text"]):
        word = word.strip()
        if not word:
            continue
        key = (data["block_num"][i], data["par_num"][i])
        paragraphs.setdefault(key, []).append(word)
        line = lines.setdefault((*key, data["line_num"][i]), len(lines))
        left, top = data["left"][i], data["top"][i]
        boxes.append([left, top, left + data["width"][i], top + data["height"][i], word, line])
        if float(data["conf"][i]) >= 0:
            confidences.append(float(data["conf"][i]))
    text = "\n\n".join(" ".join(words) for words in paragraphs.values())
    confidence = sum(confidences) / len(confidences) if confidences else 0.0
    with Image.open(image_path) as image:  # reads the header only
        width, height = image.size
    return OcrPage(text=text, confidence=confidence, width=width, height=height, words=boxes)


class OcrCache:
    """`ocr-v2-<slug>.json`: page → text, confidence and word boxes, for one PDF (by its hash)."""

    def __init__(self, cache_dir: Path, slug: str, pdf_path: Path):
        self.path = Path(cache_dir) / f"{CACHE_VERSION}-{slug}.json"
        self.pdf_hash = file_hash(pdf_path)
        self.pages: dict[int, OcrPage] = {}
        self._lock = threading.Lock()
        self._unsaved = 0
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return
        if data.get("pdf_sha256") != self.pdf_hash:
            return  # a new upload of this booklet: the old readings do not apply
        self.pages = {int(n): OcrPage(**page) for n, page in data.get("pages", {}).items()}

    def put(self, page: int, result: OcrPage) -> None:
        with self._lock:
            self.pages[page] = result
            self._unsaved += 1
            if self._unsaved >= SAVE_EVERY:
                self._save_locked()

    def save(self) -> None:
        with self._lock:
            self._save_locked()

    def _save_locked(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "pdf_sha256": self.pdf_hash,
            "pages": {str(n): asdict(p) for n, p in sorted(self.pages.items())},
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False))
        tmp.replace(self.path)  # atomic: a kill never leaves half a cache
        self._unsaved = 0


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_ocr(
    pdf_path: Path,
    page_numbers: tuple[int, ...],
    *,
    slug: str,
    images_dir: Path,
    cache_dir: Path,
    config: OcrSettings,
    on_page: Callable[[int, int], None] = lambda done, total: None,
) -> OcrResult:
    """OCR `page_numbers`, reusing the cache; `on_page(done, total)` reports progress."""
    cache = OcrCache(cache_dir, slug, pdf_path)
    result = OcrResult()
    todo = [n for n in page_numbers if n not in cache.pages]
    result.from_cache = len(page_numbers) - len(todo)
    done = result.from_cache
    on_page(done, len(page_numbers))
    pool = ThreadPoolExecutor(max_workers=max(1, config.concurrency))
    try:
        futures = {pool.submit(_ocr_page, pdf_path, n, images_dir, config): n for n in todo}
        for future in as_completed(futures):
            cache.put(futures[future], future.result())
            done += 1
            on_page(done, len(page_numbers))  # may raise: the job was cancelled
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # a stop waits for the pages in hand only
        cache.save()  # keep what was read, whatever stopped us
    for number in page_numbers:
        page = cache.pages[number]
        result.pages[number] = page
        if page.text and page.confidence < config.min_confidence:
            result.low_confidence.append((number, page.confidence))
    return result


def _ocr_page(pdf_path: Path, number: int, images_dir: Path, config: OcrSettings) -> OcrPage:
    image = page_image_path(images_dir, number)
    if not is_rendered(image, pdf_path):
        image = render_page(pdf_path, number, images_dir, config.dpi)
    return recognise(image, config.languages).scaled(72 / config.dpi)  # pixels to PDF points


def words_of_replaced_pages(pages: list[Page], result: OcrResult) -> dict[int, OcrPage]:
    """The readings whose text replaced a text layer (`apply_ocr`): the pages the viewer
    highlights from tesseract's boxes."""
    return {page.number: result.pages[page.number] for page in pages if page.ocr and page.number in result.pages}


def apply_ocr(pages: list[Page], result: OcrResult) -> int:
    """Put the OCR text in place of a page's text layer when it reads more; returns how many."""
    replaced = 0
    for page in pages:
        ocr = result.pages.get(page.number)
        if ocr and len(ocr.text) > page.char_count:
            page.paragraphs = [Paragraph(text=t, page=page.number) for t in ocr.text.split("\n\n") if t.strip()]
            page.ocr = True
            replaced += 1
    return replaced
