"""`manage.py prerender_pages SLUG`: a damaged stored PDF is one line, not pdf2image's traceback."""

from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from tests.factories import GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def test_a_truncated_stored_pdf_is_refused_in_one_line(tmp_path):
    whole = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES).read_bytes()
    stored = Path(settings.PDF_DIR) / "heat-20250101.pdf"
    stored.parent.mkdir(parents=True)
    stored.write_bytes(whole[: len(whole) // 3])  # a copy cut short (disk full, interrupted transfer)
    heat = GameFactory(name="Heat", slug="heat", pdf=str(stored.relative_to(settings.MEDIA_ROOT)), pdf_pages=3)

    with pytest.raises(CommandError) as failed:
        call_command("prerender_pages", "heat", stdout=StringIO())

    message = str(failed.value)
    assert message.startswith("heat-20250101.pdf: Unable to get page count.") and "\n" not in message
    assert not heat.base_booklet.images_dir.exists() or not any(heat.base_booklet.images_dir.iterdir())
