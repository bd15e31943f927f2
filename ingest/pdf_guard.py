"""A look at a PDF's structure before the read stage parses it in the worker.

A hostile or broken PDF must fail its job with a readable message, not take the worker
down: decompression bombs (a few kB that inflate to gigabytes), declared images of
billions of pixels, absurd page sizes (the 300 DPI page images would fill the disk),
encryption, syntax pdfminer cannot parse. The inspection runs in a child process with a
memory cap and a time limit, so even a PDF that defeats pdfminer itself only kills that
child. pdfminer later decodes content streams in the worker: their size is bounded here.

`python -m ingest.pdf_guard FILE LIMITS_JSON` prints one JSON line: {"problem": str|null}.
No Django import: the child starts fast.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class PdfLimits:
    max_stream_bytes: int = 64 * 1024 * 1024  # one decoded stream (content or image)
    max_total_bytes: int = 1024 * 1024 * 1024  # all decoded streams together
    max_image_pixels: int = 100_000_000  # 100 Mpx: a 300 DPI A2 scan is 35 Mpx
    max_page_points: float = 3500.0  # longest page side; A0 is 3370 pt
    timeout_s: float = 120.0
    memory_mb: int = 1024


def limits_from_settings() -> PdfLimits:
    from django.conf import settings

    return PdfLimits(
        max_stream_bytes=settings.PDF_MAX_STREAM_MB * 2**20,
        max_total_bytes=settings.PDF_MAX_TOTAL_MB * 2**20,
        max_image_pixels=settings.PDF_MAX_IMAGE_MEGAPIXELS * 1_000_000,
        max_page_points=settings.PDF_MAX_PAGE_POINTS,
        timeout_s=settings.PDF_GUARD_TIMEOUT_S,
        memory_mb=settings.PDF_GUARD_MEMORY_MB,
    )


class HostilePdf(ValueError):
    """The PDF cannot be read safely; the message tells the admin why (in French)."""


def check_pdf(path: Path, limits: PdfLimits) -> None:
    """Inspect `path` in a child process; raise HostilePdf with a readable message."""
    command = [sys.executable, "-m", "ingest.pdf_guard", str(path), json.dumps(asdict(limits))]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            timeout=limits.timeout_s,
            preexec_fn=lambda: _cap_memory(limits.memory_mb),
            cwd=Path(__file__).resolve().parent.parent,
        )
    except subprocess.TimeoutExpired:
        raise HostilePdf(
            f"l'analyse du PDF a dépassé {limits.timeout_s:.0f} s (structure anormalement complexe)"
        ) from None
    problem = _problem_of(done)
    if problem:
        raise HostilePdf(problem)


def _problem_of(done: subprocess.CompletedProcess) -> str | None:
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    if done.returncode == 0 and lines:
        return json.loads(lines[-1])["problem"]
    if b"MemoryError" in done.stderr or done.returncode < 0:
        return "le PDF demande trop de mémoire pour être lu (flux ou images démesurés)"
    return "le PDF n'a pas pu être analysé : " + done.stderr.decode("utf-8", "replace").strip()[-300:]


def _cap_memory(megabytes: int) -> None:
    """Runs in the forked child before exec: no import here (the import lock may be held
    by another thread of the worker at fork time)."""
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


# --- in the child process --------------------------------------------------------------------


def inspect(path: str, limits: PdfLimits) -> str | None:
    """The first problem found, in French, or None."""
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFParser

    with open(path, "rb") as handle:
        try:
            document = PDFDocument(PDFParser(handle))
        except (PDFPasswordIncorrect, PDFEncryptionError):
            return "le PDF est chiffré ou protégé par un mot de passe : exportez-en une copie sans protection"
        except Exception as exc:  # noqa: BLE001 - any parser failure is a broken file
            return f"le PDF est illisible (fichier abîmé ?) : {exc or type(exc).__name__}"
        return _pages_problem(document, limits) or _streams_problem(document, limits)


def _pages_problem(document, limits: PdfLimits) -> str | None:
    from pdfminer.pdfpage import PDFPage

    try:
        for number, page in enumerate(PDFPage.create_pages(document), start=1):
            x0, y0, x1, y1 = (float(v) for v in page.mediabox)
            if max(abs(x1 - x0), abs(y1 - y0)) > limits.max_page_points:
                return f"la page {number} mesure {abs(x1 - x0):.0f} × {abs(y1 - y0):.0f} points, au-delà de la limite de {limits.max_page_points:.0f}"
    except Exception as exc:  # noqa: BLE001
        return f"les pages du PDF sont illisibles (fichier abîmé ?) : {exc or type(exc).__name__}"
    return None


def _streams_problem(document, limits: PdfLimits) -> str | None:
    from pdfminer.pdftypes import PDFStream

    total = 0
    for objid in _object_ids(document):
        try:
            obj = document.getobj(objid)
        except Exception:  # noqa: BLE001 - an unreadable object pdfminer will skip as well
            continue
        if not isinstance(obj, PDFStream):
            continue
        if problem := _image_problem(obj, limits):
            return problem
        size = _decoded_size(obj, limits.max_stream_bytes)
        if size > limits.max_stream_bytes:
            return f"un flux du PDF se décompresse en plus de {limits.max_stream_bytes // 2**20} Mo (bombe de décompression ?)"
        total += size
        if total > limits.max_total_bytes:
            return f"le contenu décompressé du PDF dépasse {limits.max_total_bytes // 2**20} Mo"
    return None


def _object_ids(document):
    seen = set()
    for xref in document.xrefs:
        for objid in xref.get_objids():
            if objid not in seen:
                seen.add(objid)
                yield objid


def _image_problem(stream, limits: PdfLimits) -> str | None:
    from pdfminer.psparser import LIT

    if stream.get("Subtype") is not LIT("Image"):
        return None
    try:
        pixels = int(stream.get("Width", 0)) * int(stream.get("Height", 0))
    except (TypeError, ValueError):
        return None
    if pixels > limits.max_image_pixels:
        return f"une image du PDF fait {pixels / 1e6:.0f} mégapixels, au-delà de la limite de {limits.max_image_pixels / 1e6:.0f}"
    return None


def _decoded_size(stream, ceiling: int) -> int:
    """Decoded size, never inflating more than `ceiling` + 1 bytes of a Flate stream."""
    filters = stream.get_filters()
    names = [getattr(f, "name", f) for f, _params in filters]
    if names == ["FlateDecode"] and not stream.attrs.get("DecodeParms"):
        raw = stream.get_rawdata() or b""
        if stream.decipher:
            raw = stream.decipher(stream.objid, stream.genno, raw, stream.attrs)
        try:
            return len(zlib.decompressobj().decompress(raw, ceiling + 1))
        except zlib.error:
            return 0  # pdfminer keeps what it can of a corrupt stream; so will the reader
    try:
        size = len(stream.get_data() or b"")
    except Exception:  # noqa: BLE001 - an undecodable stream is skipped by pdfminer too
        return 0
    stream.data = None  # measured: do not keep every decoded stream in memory
    return size


def main(argv: list[str]) -> int:
    path, raw_limits = argv[1], argv[2]
    limits = PdfLimits(**json.loads(raw_limits))
    print(json.dumps({"problem": inspect(path, limits)}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
