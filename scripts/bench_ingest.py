"""Ingestion benchmark (prints figures; no pass/fail): the real pipeline (`run_job`),
embedded default, no LLM, on a throw-away SQLite database and media folder.

For each PDF: pages/s and chunks/s end to end against the embedder alone on the same chunk
texts (same thread count), seconds per page for each stage, tesseract alone on the same
page images, and peak RSS (this process and its children: pdftoppm, tesseract). Page
images are not part of ingestion any more (rendered on first need; `prerender_pages`).

    .venv/bin/python -m scripts.bench_ingest [PDF ...]
    .venv/bin/python -m scripts.bench_ingest --profile-stages [PDF ...]   (embedder sampled)
Default PDFs: a 16-page rulebook (Phone Impact) and the 258-page MTG Comprehensive Rules.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
# The shared evaluation corpus sits beside the checkout (../shared), or two levels up from a worktree.
CORPUS = next((p / "shared" / "eval-corpus" for p in BASE_DIR.parents if (p / "shared" / "eval-corpus").is_dir()),
              BASE_DIR.parent / "shared" / "eval-corpus")
MTG = CORPUS / "mtg" / "MagicCompRules_20250207.pdf"
SMALL = CORPUS / "rulebooks" / "phoneimpact_rules_en.pdf"


def setup_django(var_dir: Path) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="oracle_site.settings",
        ORACLE_VAR_DIR=str(var_dir),
        DEBUG="true",
        LLM_BACKEND="none",
        Q_SYNC="true",
        QDRANT_URL="",
    )
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def peak_rss_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def ingest(pdf: Path):
    from ingest import services
    from ingest.coordinator import run_job

    job = services.create_ingest(pdf_path_or_file=pdf, new_game_name=f"bench {pdf.stem}")
    started, cpu = time.monotonic(), os.times()
    job = run_job(str(job.pk))
    after = os.times()
    job.cpu_seconds = (after.user - cpu.user + after.system - cpu.system, after.children_user - cpu.children_user)
    return job, time.monotonic() - started


def embed_alone(job) -> float:
    """The embedder on the very texts the pipeline embedded, batches of 32, on as many
    threads as the pipeline had while nobody asked."""
    from django.conf import settings

    from rag.busy import ThreadPlan
    from rag.embeddings import passage_text
    from runtime import components

    texts = [passage_text(row.text, row.context) for row in job.chunks.order_by("ordinal")]
    embedder = components.embedder()
    threads = ThreadPlan(None, settings.INGEST_EMBED_THREADS).threads()
    extra = {"threads": threads} if getattr(embedder, "supports_threads", False) else {}
    started = time.monotonic()
    for start in range(0, len(texts), 32):
        embedder.embed_passages(texts[start : start + 32], **extra)
    return time.monotonic() - started


def tesseract_alone(job) -> float | None:
    """tesseract on the page images the OCR stage read (pages that needed OCR)."""
    import pytesseract
    from django.conf import settings

    from rag.page_images import page_image_path

    pages = job.stats["ocr"].get("pages_ocr", 0)
    if not pages:
        return None
    from ingest.stages.ocr import OcrCache

    cache = OcrCache(settings.INGEST_CACHE_DIR, job.booklet.slug, Path(settings.MEDIA_ROOT) / job.pdf_path)
    started = time.monotonic()
    for number in cache.pages:
        pytesseract.image_to_data(str(page_image_path(job.booklet.images_dir, number)), lang=settings.OCR_LANGUAGES)
    return time.monotonic() - started


def report(pdf: Path, job, wall: float, embed_ref: float, ocr_ref: float | None) -> None:
    stats = job.stats
    pages = stats["pages"]
    timings = stats["timings"]
    chunks = stats["chunks"]
    print(f"\n== {pdf.name}: {pages} pages, {chunks} chunks, status {job.status}, wall {wall:.1f} s")
    print(f"  end to end: {pages / wall:.2f} pages/s, {chunks / wall:.2f} chunks/s")
    print(f"  embedder alone on the same {chunks} chunk texts: {embed_ref:.1f} s, {chunks / embed_ref:.2f} chunks/s "
          f"(end to end is {100 * wall / embed_ref:.0f}% of it)")
    print(f"  embedding stage: {stats.get('embedding')}")
    print(f"  CPU: {job.cpu_seconds[0]:.1f} s in this process, {job.cpu_seconds[1]:.1f} s in children (pdftoppm, tesseract); "
          f"load average {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  OCR decision: {stats['ocr']}")
    for stage, seconds in timings.items():
        print(f"  {stage:<10} {seconds:8.2f} s  {seconds / pages:7.3f} s/page")
    others = sum(s for k, s in timings.items() if k not in ("embed", "ocr"))
    print(f"  stages other than embed/OCR: {others:.2f} s = {100 * others / embed_ref:.1f}% of embedding alone")
    if ocr_ref:
        print(f"  OCR stage {timings.get('ocr', 0):.2f} s vs tesseract alone {ocr_ref:.2f} s: x{timings.get('ocr', 0) / ocr_ref:.2f}")
    own, children = peak_rss_mb()
    print(f"  peak RSS so far: {own:.0f} MB (this process), {children:.0f} MB (largest child)")


def main(paths: list[str]) -> None:
    pdfs = [Path(p) for p in paths] or [p for p in (SMALL, MTG) if p.exists()]
    if not pdfs:
        sys.exit(f"no PDF to ingest: give paths, or put the evaluation corpus at {CORPUS}")
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as var_dir:
        setup_django(Path(var_dir))
        print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}, cores {os.cpu_count()}")
        for pdf in pdfs:
            job, wall = ingest(pdf)
            if job.status != "done":
                print(f"\n== {pdf.name}: {job.status}: {job.error}")
                continue
            stats = job.stats  # the end-to-end figure first: the reference run below takes as long again
            print(f"\n{pdf.name}: ingested in {wall:.1f} s ({stats['pages'] / wall:.2f} pages/s, "
                  f"{stats['chunks'] / wall:.2f} chunks/s); load average {os.getloadavg()[0]:.2f}; now the embedder alone…", flush=True)
            report(pdf, job, wall, embed_alone(job), tesseract_alone(job))




def profile_stages(pdf: Path, sample: int = 96) -> None:
    """A lighter run for a busy machine: every stage but the embedder on the whole PDF
    (the same functions the pipeline calls), and the embedder on a sample of the chunks,
    extrapolated. Prints the same ratios as the full run."""
    import random

    import numpy as np

    from ingest import services
    from ingest.coordinator import ocr_settings
    from ingest.stages import chunk, context, hierarchy, index, ocr, read
    from rag.embeddings import passage_text
    from rag.sparse import document_vector
    from runtime import components

    job = services.create_ingest(pdf_path_or_file=pdf, new_game_name=f"profile {pdf.stem}")
    booklet = job.booklet
    timings: dict[str, float] = {}

    def timed(name, fn):
        started = time.monotonic()
        result = fn()
        timings[name] = time.monotonic() - started
        return result

    pages = timed("read", lambda: list(read.read_pages(pdf)))
    decision = ocr.decide_ocr(pages, ocr_settings())
    drafts = timed("chunk", lambda: (hierarchy.mark_headings(pages), chunk.chunk_pages(pages))[1])
    timed("hierarchy", lambda: hierarchy.assign_paths(pages, drafts))
    timed("context", lambda: context.contextualise(drafts, game="G", booklet=booklet.name, slug=booklet.slug, llm=None, cache_dir=Path(var_dir_of()), concurrency=1))
    texts = [passage_text(d.text, d.context) for d in drafts]
    sparse = timed("sparse", lambda: [document_vector(t) for t in texts])
    embedder = components.embedder()
    picked = random.Random(0).sample(texts, min(sample, len(texts)))
    started = time.monotonic()
    for start in range(0, len(picked), 32):
        embedder.embed_passages(picked[start : start + 32])
    embed_estimate = (time.monotonic() - started) * len(texts) / len(picked)
    dense = np.zeros((len(drafts), embedder.dim), dtype=np.float32)  # vectors' values do not change the write cost
    rows = timed("index", lambda: index.replace_booklet_rows(job, booklet, index.build_rows(job, booklet, drafts, dense, sparse, [{}] * len(drafts), embedder.name)))
    from rag import page_render

    timed("images", lambda: page_render.render_all(pdf, booklet.images_dir, dpi=300, threads=2))  # prerender_pages, not ingestion
    others = sum(v for k, v in timings.items() if k != "images")
    print(f"\n== {pdf.name} (stage profile): {len(pages)} pages, {len(drafts)} chunks, OCR {decision.outcome}, load average {os.getloadavg()[0]:.1f}")
    for name, seconds in timings.items():
        print(f"  {name:<10} {seconds:8.2f} s  {seconds / len(pages):7.3f} s/page")
    print(f"  embedder: {len(picked)} sampled chunks, extrapolated to all {len(texts)}: {embed_estimate:.1f} s ({embed_estimate / len(pages):.3f} s/page)")
    print(f"  stages other than embed/OCR/images: {others:.2f} s = {100 * others / embed_estimate:.1f}% of embedding")
    print(f"  page images (prerender_pages, no longer part of ingestion): {timings['images']:.1f} s = {100 * timings['images'] / embed_estimate:.1f}% of embedding")
    own, children = peak_rss_mb()
    print(f"  peak RSS: {own:.0f} MB (this process), {children:.0f} MB (largest child)")


def var_dir_of() -> str:
    from django.conf import settings

    return str(settings.INGEST_CACHE_DIR)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--profile-stages"]:
        with tempfile.TemporaryDirectory(prefix="bench-ingest-") as var_dir:
            setup_django(Path(var_dir))
            for path in sys.argv[2:] or [str(MTG)]:
                profile_stages(Path(path))
    else:
        main(sys.argv[1:])
