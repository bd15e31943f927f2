import uuid

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from tests.factories import ExtensionFactory, GameFactory

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@pytest.fixture
def game_with_pdfs(db):
    game = GameFactory(name="Heat", rules=True)
    game.pdf.save("heat.pdf", ContentFile(PDF_BYTES))
    ext = ExtensionFactory(game=game, name="Tempête", rules=True)
    ext.pdf.save("tempete.pdf", ContentFile(PDF_BYTES + b"ext"))
    return game


def test_base_and_extension_booklets_are_served_inline_by_id(client, bob, game_with_pdfs):
    client.force_login(bob)
    ext = game_with_pdfs.extensions.get()

    base = client.get(reverse("oracle-booklet-pdf", args=[game_with_pdfs.pk]))
    extension = client.get(reverse("oracle-booklet-pdf", args=[ext.pk]))

    assert base["Content-Type"] == "application/pdf"
    assert base["Content-Disposition"].startswith("inline")
    assert b"".join(base.streaming_content) == PDF_BYTES
    assert b"".join(extension.streaming_content) == PDF_BYTES + b"ext"


def test_unknown_booklet_or_booklet_without_pdf_is_404(client, bob):
    client.force_login(bob)
    no_pdf = GameFactory()
    assert client.get(reverse("oracle-booklet-pdf", args=[uuid.uuid4()])).status_code == 404
    assert client.get(reverse("oracle-booklet-pdf", args=[no_pdf.pk])).status_code == 404
    assert client.get("/booklets/..%2F..%2Fsettings.py/pdf").status_code == 404


def test_booklets_are_not_served_to_anonymous_visitors(client, game_with_pdfs):
    response = client.get(reverse("oracle-booklet-pdf", args=[game_with_pdfs.pk]))
    assert response.status_code == 302


def test_viewer_page_loads_the_booklet_with_vendored_pdfjs(client, bob, game_with_pdfs):
    client.force_login(bob)
    page = client.get(reverse("oracle-booklet-viewer", args=[game_with_pdfs.pk])).content.decode()
    assert f'data-pdf-url="/booklets/{game_with_pdfs.pk}/pdf"' in page
    assert "/static/vendor/pdfjs/build/pdf.min.mjs" in page
    assert "Heat" in page
