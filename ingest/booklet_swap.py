"""A booklet replaced by a new upload changes in one step, or not at all.

A new PDF for a booklet that already has one is stored beside the old one (`services`): the
booklet keeps serving its old PDF, chunks, page images and language while the job reads the
new file. Only when the job has its new rows does `adopt` give the booklet the new PDF, page
count and language in the transaction that swaps the chunks (`stages.index`); the page
images the job rendered (OCR) replace the old ones right after. A failed or cancelled
replacement (`discard`) leaves the booklet as it was: the new PDF stays on disk, tied to its
job, so « Relancer » can read it again; its page images and unswapped rows go.

Before this, the booklet's PDF was swapped at upload time: answers cited the old chunks'
pages in the new file, and a rejected upload (a decompression bomb) stayed the booklet's PDF.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from games.models import Booklet


def is_replacement(job, booklet: Booklet) -> bool:
    """The job reads another file than the one the booklet serves."""
    return bool(job.pdf_path) and booklet.pdf.name != job.pdf_path


def staging_images_dir(job) -> Path:
    """Where a replacement's OCR renders its page images: not a booklet's folder, so nothing
    serves them (games.page_sources maps PAGE_IMAGES_DIR/<slug> only)."""
    return Path(settings.PAGE_IMAGES_DIR) / f".replacement-{job.pk}"


@dataclass
class Replacement:
    """What a running replacement holds back until `adopt`."""

    job: object
    language: str | None = None  # detected from the new text, applied on adoption

    def set_language(self, booklet: Booklet, code: str) -> None:
        """`language_choice.settle`'s writer: the language waits for the swap."""
        self.language = code


def adopt(job, booklet: Booklet, replacement: Replacement | None, pages: int) -> None:
    """Inside the chunk swap's transaction: the booklet takes the job's PDF, its page count
    and the language read from its text."""
    if replacement is None:
        return
    owner = booklet.owner
    fields = {"pdf": job.pdf_path, "pdf_pages": job.pdf_pages or pages}
    if replacement.language:
        fields["language"] = replacement.language
    type(owner).objects.filter(pk=owner.pk).update(**fields)


def move_images(job, booklet: Booklet) -> None:
    """After the swap: the old PDF's page images go (they would be served for the new file's
    pages); the ones this job rendered take their place."""
    target = booklet.images_dir
    shutil.rmtree(target, ignore_errors=True)
    staged = staging_images_dir(job)
    if staged.is_dir():
        staged.rename(target)


def discard(job) -> None:
    """A job that failed or was cancelled: its staged page images go. Its rows need no removal:
    they are written in the swap's own transaction (ingest.stages.index.replace_booklet_rows),
    so any that exist are the booklet's — an earlier attempt of the same job may have swapped
    them in before failing, and deleting them would leave the booklet without rules."""
    shutil.rmtree(staging_images_dir(job), ignore_errors=True)
