"""An upload's PDF is parsed by ingest.pdf_guard's capped child, never by the web process:
pdfminer inflates cross-reference and object streams whole, and a 1 kB upload once held the
web process at 1 GB for seconds before it answered 202."""

import struct
import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games.models import Game
from ingest import services
from ingest.models import IngestJob
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def xref_stream_bomb(inflated_mb: int) -> bytes:
    """A valid one-page PDF whose cross-reference *stream* is `/FlateDecode` twice over its
    entries and `inflated_mb` MB of zeros: pdfminer inflates it whole to open the file."""
    out = bytearray(b"%PDF-1.5\n")
    offsets = []
    for number, body in enumerate(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
        ],
        start=1,
    ):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    entries = struct.pack(">BIH", 0, 0, 65535) + b"".join(struct.pack(">BIH", 1, offset, 0) for offset in [*offsets, xref])
    compressor = zlib.compressobj(9)
    inner = compressor.compress(entries) + b"".join(compressor.compress(bytes(1 << 20)) for _ in range(inflated_mb))
    data = zlib.compress(inner + compressor.flush(), 9)
    out += b"4 0 obj\n<< /Type /XRef /Size 5 /W [1 4 2] /Root 1 0 R /Filter [/FlateDecode /FlateDecode] /Length %d >>\n" % len(data)
    out += b"stream\n" + data + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def test_a_decompression_bomb_is_refused_at_upload_by_the_guard_and_nothing_is_written(client, alice, settings):
    settings.PDF_MAX_STREAM_MB = 32
    bomb = xref_stream_bomb(inflated_mb=100)
    assert len(bomb) < 8 * 1024
    client.force_login(alice)

    response = client.post(
        "/api/games/ingest", {"pdf": SimpleUploadedFile("regles.pdf", bomb, "application/pdf"), "new_game_name": "Heat"}
    )

    assert response.status_code == 400, response.content
    # the guard's own reason: only its child measures decoded streams (the web process never parses)
    assert "sans risque" in response.json()["detail"]
    assert "bombe de décompression" in response.json()["detail"]
    assert not Game.objects.exists() and not IngestJob.objects.exists()
    assert not settings.PDF_DIR.exists() or not any(settings.PDF_DIR.iterdir())


def test_the_web_process_does_not_open_the_pdf_itself(monkeypatch, tmp_path):
    """pdfminer in the web process is what the bomb inflated; the page count comes from the child."""
    import pdfminer.pdfdocument

    def opened_here(*args, **kwargs):
        raise AssertionError("the web process parsed the upload")

    monkeypatch.setattr(pdfminer.pdfdocument.PDFDocument, "__init__", opened_here)
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES, per_page=1)

    assert services.validate_pdf(pdf).pages == len(LOREM_RULES)
    assert services.validate_pdf(pdf.read_bytes()).pages == len(LOREM_RULES)
