"""tesseract's word boxes of the OCR'd pages are kept (in PDF points), served to the viewer,
replaced by a new ingestion and deleted with the booklet."""

import pytest

from games.models import OcrPageWords
from tests.e2e.viewer_pages import drawn_box
from tests.ingest.pdfs import page_image, rulebook_pdf, scanned_pdf
from tests.ingest.running import ingest_inline

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

LINES = ["Le dragon rouge garde le tresor", "du donjon pendant trois tours."]
A4_POINTS = (595.28, 841.89)  # the page fpdf2 makes (tests/ingest/pdfs.py)


def test_ocr_pages_keep_their_word_boxes_in_pdf_points(tmp_path, client, bob):
    pdf = scanned_pdf(tmp_path / "scan.pdf", [LINES], tmp_path)

    job = ingest_inline(pdf, new_game_name="Donjon")

    words = OcrPageWords.objects.get(game=job.game, extension=None, page=1)
    assert (words.width, words.height) == pytest.approx(A4_POINTS, abs=1.5)
    by_text = {w[4].lower(): w for w in words.words}
    x0, y0, x1, y1, _, line = by_text["dragon"]
    expected = drawn_box(LINES, 0, "dragon")
    expected = (expected.left, expected.top, expected.right, expected.bottom)
    got = (x0 / words.width, y0 / words.height, x1 / words.width, y1 / words.height)
    assert got == pytest.approx(expected, abs=0.01)  # within 1 % of the page: on the word
    assert by_text["rouge"][5] == line != by_text["donjon"][5]  # words grouped by line
    assert job.stats["ocr_word_pages"] == 1

    assert client.get(f"/booklets/{job.game.pk}/pages/1/words").status_code == 404  # not signed in
    client.force_login(bob)
    served = client.get(f"/booklets/{job.game.pk}/pages/1/words").json()
    assert served["width"] == words.width and ["dragon", "rouge"] == [w[4].lower() for w in served["words"][1:3]]
    assert client.get(f"/booklets/{job.game.pk}/pages/2/words").status_code == 404


def test_a_new_upload_with_a_text_layer_drops_the_old_boxes_and_deleting_the_game_drops_them_all(tmp_path):
    job = ingest_inline(scanned_pdf(tmp_path / "scan.pdf", [LINES], tmp_path), new_game_name="Donjon")
    game = job.game
    assert OcrPageWords.objects.filter(game=game).count() == 1

    text_pdf = rulebook_pdf(tmp_path / "text.pdf", [("Donjon", [" ".join(LINES) * 6])])
    ingest_inline(text_pdf, game=game)
    assert not OcrPageWords.objects.filter(game=game).exists()

    ingest_inline(scanned_pdf(tmp_path / "scan2.pdf", [LINES, page_image(LINES)], tmp_path), game=game)
    assert OcrPageWords.objects.filter(game=game).count() == 2
    game.delete()
    assert not OcrPageWords.objects.exists()
