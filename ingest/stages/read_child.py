"""The read stage in a child process capped in memory (INGEST_READ_MEMORY_MB).

pdfminer decodes every content stream it reads; the PDF guard bounds their sizes, and this
cap makes sure a PDF that gets past the guard only kills this child, never the worker (one
once held the worker at 2.4–4.3 GB for 17 minutes while every queued job waited). Pages
come back one JSON line each, so progress (and cancellation) still happen page by page.

`python -m ingest.stages.read_child FILE [--table-rows]` prints one line per page, or {"error": …}.
No Django import: the child starts fast.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Iterator

from ..pdf_guard import Problem, gettext_noop
from .read import Page, Paragraph

PROJECT_DIR = Path(__file__).resolve().parents[2]
TABLE_ROWS = "--table-rows"


class ReadFailed(Exception):
    """The PDF could not be read; the message (French) says why."""


def read_pages(pdf: Path, memory_mb: int, *, table_rows: bool = False) -> Iterator[Page]:
    """Yield the pages read by a capped child; the child is killed if the caller stops early.
    `table_rows`: the worker's INGEST_TABLE_ROWS (the child has no Django settings)."""
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "ingest.stages.read_child", str(pdf), *([TABLE_ROWS] if table_rows else [])],
            stdout=subprocess.PIPE,
            stderr=errors,  # a file: pdfminer's warnings cannot fill a pipe and block the child
            preexec_fn=lambda: _cap_memory(memory_mb),
            cwd=PROJECT_DIR,
        )
        try:
            for line in process.stdout:
                record = json.loads(line)
                if "error" in record:
                    raise ReadFailed(record["error"])
                yield _page(record)
            if process.wait() != 0:
                errors.seek(0)
                raise ReadFailed(_crash_message(errors.read(), process.returncode, memory_mb))
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stdout.close()


def _page(record: dict) -> Page:
    return Page(number=record["number"], paragraphs=[Paragraph(**p) for p in record["paragraphs"]], ocr=record["ocr"])


def _crash_message(stderr: bytes, returncode: int, memory_mb: int) -> Problem:
    if b"MemoryError" in stderr or returncode < 0:
        return Problem(gettext_noop("la lecture du PDF demande plus de %(mb)d Mo de mémoire (flux démesurés)"), mb=memory_mb)
    return Problem(gettext_noop("la lecture du PDF a échoué : %(error)s"), error=stderr.decode("utf-8", "replace").strip()[-300:])


def _cap_memory(megabytes: int) -> None:
    """In the forked child before exec: no import here (another thread may hold the import lock)."""
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main(path: str, *options: str) -> int:
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfminer.psparser import PSException

    from .read import read_pages as read_in_process

    try:
        for page in read_in_process(path, table_rows=TABLE_ROWS in options):
            print(json.dumps(asdict(page), ensure_ascii=False), flush=True)
    except (PDFSyntaxError, PSException) as exc:
        print(json.dumps({"error": str(exc) or type(exc).__name__}, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
