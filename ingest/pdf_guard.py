"""A look at a PDF's structure before the read stage parses it in the worker.

A hostile or broken PDF must fail its job with a readable message, not take the worker
down: decompression bombs (a few kB that inflate to gigabytes), declared images of
billions of pixels, absurd page sizes (the 300 DPI page images would fill the disk),
encryption, syntax pdfminer cannot parse. The inspection runs in a child process with a
memory cap and a time limit, so even a PDF that defeats pdfminer itself only kills that
child. pdfminer later decodes content streams in the worker: their size is bounded here.

The upload check (ingest.services.validate_pdf) counts the pages here as well, so that the
web process never parses a PDF itself.

`python -m ingest.pdf_guard FILE LIMITS_JSON` prints one JSON line: {"problem": str|null, "pages": int}.
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


def gettext_noop(message: str) -> str:
    """Marks a message for makemessages (no Django here: the child starts fast)."""
    return message


class Problem(str):
    """A problem in French, with its message id and parameters so that the worker can say it
    in every language of the site (ingest.progress.Text)."""

    msgid: str
    params: dict

    def __new__(cls, msgid: str, **params):
        self = super().__new__(cls, msgid % params if params else msgid)
        self.msgid, self.params = msgid, params
        return self

    def as_dict(self) -> dict:
        return {"problem": str(self), "msgid": self.msgid, "params": self.params}

    @classmethod
    def from_dict(cls, data: dict) -> "Problem | str | None":
        if data.get("msgid"):
            return cls(data["msgid"], **(data.get("params") or {}))
        return data.get("problem")


class HostilePdf(ValueError):
    """The PDF cannot be read safely; the message (a Problem) tells the admin why."""


def check_pdf(path: Path, limits: PdfLimits) -> int:
    """Inspect `path` in a child process and return its number of pages; raise HostilePdf
    with a readable message."""
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
            Problem(gettext_noop("l'analyse du PDF a dépassé %(seconds).0f s (structure anormalement complexe)"), seconds=limits.timeout_s)
        ) from None
    problem, pages = _outcome_of(done)
    if problem:
        raise HostilePdf(problem)
    return pages


def _outcome_of(done: subprocess.CompletedProcess) -> tuple[str | None, int]:
    """(the problem or None, the number of pages) the child reported."""
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    if done.returncode == 0 and lines:
        outcome = json.loads(lines[-1])
        return Problem.from_dict(outcome), outcome.get("pages", 0)
    if b"MemoryError" in done.stderr or done.returncode < 0:
        return memory_problem(), 0
    return Problem(gettext_noop("le PDF n'a pas pu être analysé : %(error)s"), error=done.stderr.decode("utf-8", "replace").strip()[-300:]), 0


def _cap_memory(megabytes: int) -> None:
    """Runs in the forked child before exec: no import here (the import lock may be held
    by another thread of the worker at fork time)."""
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


# --- in the child process --------------------------------------------------------------------


ENCRYPTED = gettext_noop("le PDF est chiffré ou protégé par un mot de passe : exportez-en une copie sans protection")
UNREADABLE = gettext_noop("le PDF est illisible (fichier abîmé ?) : %(error)s")
PAGES_UNREADABLE = gettext_noop("les pages du PDF sont illisibles (fichier abîmé ?) : %(error)s")


def inspect(path: str, limits: PdfLimits) -> tuple[Problem | None, int]:
    """The first problem found (or None), and the number of pages."""
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFParser

    with open(path, "rb") as handle:
        try:
            document = PDFDocument(PDFParser(handle))
        except (PDFPasswordIncorrect, PDFEncryptionError):
            return Problem(ENCRYPTED), 0
        except Exception as exc:  # noqa: BLE001 - any parser failure is a broken file
            return Problem(UNREADABLE, error=str(exc or type(exc).__name__)), 0
        problem, pages = _pages_problem(document, limits)
        return problem or _streams_problem(document, limits), pages


def _pages_problem(document, limits: PdfLimits) -> tuple[Problem | None, int]:
    """The first problem of a page (or None), and the number of pages."""
    from pdfminer.pdfpage import PDFPage

    number = 0
    try:
        for number, page in enumerate(PDFPage.create_pages(document), start=1):
            x0, y0, x1, y1 = (float(v) for v in page.mediabox)
            if max(abs(x1 - x0), abs(y1 - y0)) > limits.max_page_points:
                return Problem(
                    gettext_noop("la page %(page)d mesure %(width).0f × %(height).0f points, au-delà de la limite de %(limit).0f"),
                    page=number, width=abs(x1 - x0), height=abs(y1 - y0), limit=limits.max_page_points,
                ), number
    except Exception as exc:  # noqa: BLE001
        return Problem(PAGES_UNREADABLE, error=str(exc or type(exc).__name__)), number
    return None, number


def _streams_problem(document, limits: PdfLimits) -> Problem | None:
    from pdfminer.pdftypes import PDFStream

    total = 0
    for objid in _object_ids(document):
        try:
            obj = document.getobj(objid)  # may decode an object stream
        except MemoryError:
            return memory_problem()  # fail closed: never "no problem" for what could not be looked at
        except Exception:  # noqa: BLE001 - an unreadable object pdfminer will skip as well
            continue
        if not isinstance(obj, PDFStream):
            continue
        if problem := _image_problem(obj, limits):
            return problem
        try:
            size = _decoded_size(obj, limits.max_stream_bytes)
        except MemoryError:
            return memory_problem()
        if size > limits.max_stream_bytes:
            return Problem(gettext_noop("un flux du PDF se décompresse en plus de %(mb)d Mo (bombe de décompression ?)"), mb=limits.max_stream_bytes // 2**20)
        total += size
        if total > limits.max_total_bytes:
            return Problem(gettext_noop("le contenu décompressé du PDF dépasse %(mb)d Mo"), mb=limits.max_total_bytes // 2**20)
    return None


def _object_ids(document):
    seen = set()
    for xref in document.xrefs:
        for objid in xref.get_objids():
            if objid not in seen:
                seen.add(objid)
                yield objid


def _image_problem(stream, limits: PdfLimits) -> Problem | None:
    from pdfminer.psparser import LIT

    if stream.get("Subtype") is not LIT("Image"):
        return None
    try:
        pixels = int(stream.get("Width", 0)) * int(stream.get("Height", 0))
    except (TypeError, ValueError):
        return None
    if pixels > limits.max_image_pixels:
        return Problem(
            gettext_noop("une image du PDF fait %(mpx).0f mégapixels, au-delà de la limite de %(limit).0f"),
            mpx=pixels / 1e6, limit=limits.max_image_pixels / 1e6,
        )
    return None


class _TooLarge(Exception):
    """A stage of a stream's filter chain passed the ceiling."""


MEMORY_PROBLEM = gettext_noop("le PDF demande trop de mémoire pour être lu (flux ou images démesurés)")


def memory_problem() -> Problem:
    return Problem(MEMORY_PROBLEM)

INFLATE_STEP = 1 << 20  # bytes of output per zlib call: memory stays O(step) per stage


def _decoded_size(stream, ceiling: int) -> int:
    """Decoded size of a stream through its whole filter chain (`/FlateDecode` twice,
    predictors, ASCII, LZW…), never holding more than `ceiling` + 1 decoded bytes of any
    stage: past the ceiling, ceiling + 1. Flate stages inflate incrementally, chained.
    A MemoryError is not caught here: the caller fails closed (it once answered "no problem")."""
    from pdfminer import pdftypes

    raw = stream.get_rawdata() or b""
    if stream.decipher:
        raw = stream.decipher(stream.objid, stream.genno, raw, stream.attrs)
    chunks = iter([raw])
    try:
        for name, params in stream.get_filters():
            if name in pdftypes.LITERALS_FLATE_DECODE:
                chunks = _inflate(chunks, ceiling)  # predictors never enlarge: not applied
            elif name in pdftypes.LITERALS_DCT_DECODE + pdftypes.LITERALS_JBIG2_DECODE + pdftypes.LITERALS_JPX_DECODE:
                break  # kept encoded by pdfminer; image sizes are checked by their header
            else:
                chunks = iter([_other_filter(name, params, _joined(chunks, ceiling))])
        return _counted(chunks, ceiling)
    except _TooLarge:
        return ceiling + 1


def _inflate(chunks, ceiling: int):
    inflater = zlib.decompressobj()
    produced = 0
    try:
        for chunk in chunks:
            while chunk and not inflater.eof:
                out = inflater.decompress(chunk, INFLATE_STEP)
                produced += len(out)
                if produced > ceiling:
                    raise _TooLarge
                yield out
                chunk = inflater.unconsumed_tail
            if inflater.eof:
                return
    except zlib.error:
        return  # a corrupt stream: pdfminer keeps what it can, so will the reader


def _joined(chunks, ceiling: int) -> bytes:
    data = bytearray()
    for chunk in chunks:
        data += chunk
        if len(data) > ceiling:
            raise _TooLarge
    return bytes(data)


def _other_filter(name, params, data: bytes) -> bytes:
    """pdfminer's own decoder for a non-Flate filter, on input already bounded; an unknown
    filter leaves the data as is (pdfminer refuses the stream)."""
    from pdfminer import pdftypes

    decoders = {
        **dict.fromkeys(pdftypes.LITERALS_LZW_DECODE, pdftypes.lzwdecode),
        **dict.fromkeys(pdftypes.LITERALS_ASCII85_DECODE, pdftypes.ascii85decode),
        **dict.fromkeys(pdftypes.LITERALS_ASCIIHEX_DECODE, pdftypes.asciihexdecode),
        **dict.fromkeys(pdftypes.LITERALS_RUNLENGTH_DECODE, pdftypes.rldecode),
    }
    if name in pdftypes.LITERALS_CCITTFAX_DECODE:
        return pdftypes.ccittfaxdecode(data, params)
    decoder = decoders.get(name)
    try:
        return decoder(data) if decoder else data
    except (ValueError, TypeError, IndexError, KeyError, EOFError):
        return b""  # undecodable: pdfminer fails on it too


def _counted(chunks, ceiling: int) -> int:
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > ceiling:
            raise _TooLarge
    return total


def main(argv: list[str]) -> int:
    path, raw_limits = argv[1], argv[2]
    limits = PdfLimits(**json.loads(raw_limits))
    problem, pages = inspect(path, limits)
    print(json.dumps({**(problem.as_dict() if problem else {"problem": None}), "pages": pages}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
