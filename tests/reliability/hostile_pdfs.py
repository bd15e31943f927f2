"""Hostile and broken PDFs, written byte by byte: what an attacker (or a bad export) uploads."""

from __future__ import annotations

import zlib
from pathlib import Path

from tests.ingest.pdfs import encrypted_pdf, rulebook_pdf  # noqa: F401  (re-exported)

RULES = [
    ("Mise en place", ["Chaque joueur prend un plateau et trois cartes Vitesse."]),
    ("Tour de jeu", ["Le premier joueur lance le dé puis avance sa voiture d'autant de cases."]),
]


def raw_pdf(path: Path, objects: list[bytes]) -> Path:
    """A PDF whose objects are given (1-based, object 1 is the catalog) with a correct xref."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    Path(path).write_bytes(bytes(out))
    return Path(path)


def _stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def one_page_pdf(path: Path, *, content: bytes = b"", content_filter: bytes = b"", mediabox=(0, 0, 595, 842), xobject: bytes = b"") -> Path:
    box = b"[%d %d %d %d]" % mediabox
    resources = b"<< /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >>" if xobject else b"<< /Font << /F1 5 0 R >> >>"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox " + box + b" /Contents 4 0 R /Resources " + resources + b" >>",
        _stream(content_filter, content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    if xobject:
        objects.append(xobject)
    return raw_pdf(path, objects)


def text_page_pdf(path: Path) -> Path:
    return one_page_pdf(path, content=b"BT /F1 12 Tf 72 720 Td (Chaque joueur pioche deux cartes au debut du tour.) Tj ET")


def zip_bomb_pdf(path: Path, inflated_mb: int) -> Path:
    """A page whose content stream is a few hundred kB that inflate to `inflated_mb` MB."""
    compressor = zlib.compressobj(9)
    block = b" " * (1 << 20)
    data = b"".join(compressor.compress(block) for _ in range(inflated_mb)) + compressor.flush()
    return one_page_pdf(path, content=data, content_filter=b"/Filter /FlateDecode")


def huge_image_pdf(path: Path, width: int = 60000, height: int = 60000) -> Path:
    """A page drawing one image that declares width × height pixels (a tiny, lying stream)."""
    pixels = zlib.compress(b"\x00" * 1024)
    image = _stream(
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode" % (width, height),
        pixels,
    )
    return one_page_pdf(path, content=b"q 500 0 0 700 50 50 cm /Im1 Do Q", xobject=image)


def huge_page_pdf(path: Path, side: int = 200000) -> Path:
    """A page of `side` points square: its 300 DPI image would need terabytes."""
    return one_page_pdf(path, content=b"BT /F1 12 Tf 72 720 Td (Page immense.) Tj ET", mediabox=(0, 0, side, side))


def truncated_pdf(path: Path, source: Path) -> Path:
    data = Path(source).read_bytes()
    Path(path).write_bytes(data[: len(data) // 2])
    return Path(path)


def corrupt_pdf(path: Path) -> Path:
    Path(path).write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\n\x00\xff garbage " * 50)
    return Path(path)


def deflate_zeros(size: int) -> bytes:
    """`size` (a multiple of 1 MB) zero bytes as one zlib stream, built in milliseconds: once
    the window is all zeros, every further 1 MB of zeros deflates (sync-flushed) to the same
    bytes, so they are repeated; the trailer's Adler-32 of N zeros is (N mod 65521) << 16 | 1."""
    block = bytes(1 << 20)
    compressor = zlib.compressobj(9)
    first = compressor.compress(block) + compressor.flush(zlib.Z_SYNC_FLUSH)
    repeated = compressor.compress(block) + compressor.flush(zlib.Z_SYNC_FLUSH)
    end = compressor.flush(zlib.Z_FINISH)[:-4]  # the final empty block, without the trailer
    body = first + repeated * ((size >> 20) - 1) + end
    return body + (((size % 65521) << 16) | 1).to_bytes(4, "big")


def double_flate_bomb_pdf(path: Path, inflated: int = 2 << 30) -> Path:
    """A page whose content is `/FlateDecode` twice over `inflated` bytes of zeros: a few kB
    on disk (the second deflate squeezes the first's repetitive output)."""
    once = deflate_zeros(inflated)
    return one_page_pdf(path, content=zlib.compress(once, 9), content_filter=b"/Filter [/FlateDecode /FlateDecode]")


def decode_parms_bomb_pdf(path: Path, inflated: int = 2 << 30) -> Path:
    """A page whose content is Flate with PNG predictor parameters over `inflated` zeros."""
    return one_page_pdf(
        path,
        content=deflate_zeros(inflated),
        content_filter=b"/Filter /FlateDecode /DecodeParms << /Predictor 12 /Colors 1 /BitsPerComponent 8 /Columns 1023 >>",
    )
