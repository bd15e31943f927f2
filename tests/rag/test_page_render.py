"""Page images through pdf2image, on first need: rendered once even when two askers want the
same page at the same moment, never half-written, rendered again after a re-upload."""

import os
import threading
import time

import pytest
from PIL import Image

from rag import page_images, page_render
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    page_images.invalidate()
    yield
    page_images.invalidate()


@pytest.fixture
def counted(monkeypatch):
    """The real pdf2image conversion, counting the pages it was asked for."""
    calls = []
    real = page_render._convert

    def convert(pdf_path, first, last, dpi, threads):
        calls.append((first, last))
        return real(pdf_path, first, last, dpi, threads)

    monkeypatch.setattr(page_render, "_convert", convert)
    return calls


def test_a_page_is_rendered_when_first_asked_for_then_reused(tmp_path, counted):
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)
    folder = tmp_path / "images" / "heat"
    renderer = page_render.LazyRenderer(source=lambda f: pdf if f == folder else None, dpi=50)

    first = page_render.ensure_page_image(folder, 2, renderer)
    again = page_render.ensure_page_image(folder, 2, renderer)

    assert first == again == folder / "page-02.png"
    with Image.open(first) as image:
        assert image.format == "PNG" and abs(image.width - 595 * 50 / 72) <= 1  # A4 (595 pt) at 50 DPI
    assert counted == [(2, 2)]
    assert [p.name for p in folder.glob("*.png")] == ["page-02.png"]  # no leftover temporary file


def test_two_askers_of_one_page_render_it_once(tmp_path, counted):
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)
    folder = tmp_path / "images" / "heat"
    renderer = page_render.LazyRenderer(source=lambda f: pdf, dpi=50)
    start = threading.Barrier(4)
    results = []

    def ask():
        start.wait()
        results.append(page_render.ensure_page_image(folder, 1, renderer))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results == [folder / "page-01.png"] * 4
    assert counted == [(1, 1)]


def test_an_image_older_than_the_pdf_is_rendered_again(tmp_path, counted):
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)
    folder = tmp_path / "images" / "heat"
    renderer = page_render.LazyRenderer(source=lambda f: pdf, dpi=50)
    old = page_render.ensure_page_image(folder, 1, renderer)
    stamp = pdf.stat().st_mtime - 60
    os.utime(old, (stamp, stamp))  # as if rendered from the previous upload

    assert page_render.ensure_page_image(folder, 1, renderer) == old
    assert counted == [(1, 1), (1, 1)]
    assert old.stat().st_mtime >= pdf.stat().st_mtime


def test_unknown_pdf_or_broken_pdf_means_no_image_not_an_error(tmp_path):
    folder = tmp_path / "images" / "ghost"
    renderer = page_render.LazyRenderer(source=lambda f: None, dpi=50)
    assert page_render.ensure_page_image(folder, 1, renderer) is None
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot a pdf at all\n")
    renderer = page_render.LazyRenderer(source=lambda f: broken, dpi=50)
    assert page_render.ensure_page_image(folder, 1, renderer) is None
    assert not list(folder.glob("*.png"))


def test_a_page_poppler_failed_on_is_not_rendered_again_until_its_pdf_changes(tmp_path, monkeypatch):
    tries, real = [], page_render.render_page
    monkeypatch.setattr(page_render, "render_page", lambda *args: tries.append(args) or real(*args))
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot a pdf at all\n")
    folder = tmp_path / "images" / "broken"
    renderer = page_render.LazyRenderer(source=lambda f: broken, dpi=50)

    assert [page_render.ensure_page_image(folder, 1, renderer) for _ in range(3)] == [None] * 3
    assert len(tries) == 1  # each try ran poppler again, for any reader asking

    rulebook_pdf(broken, LOREM_RULES)  # uploaded again, readable now
    os.utime(broken, (time.time() + 5, time.time() + 5))
    assert page_render.ensure_page_image(folder, 1, renderer) is not None
    assert len(tries) == 2


def test_prerendering_renders_the_missing_pages_only(tmp_path, counted):
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES, per_page=1)
    folder = tmp_path / "images" / "heat"
    page_render.render_page(pdf, 2, page_images.page_image_path(folder, 2), 50)
    counted.clear()

    rendered = page_render.render_all(pdf, folder, dpi=50, threads=2)

    pages = len(LOREM_RULES)
    assert rendered == pages - 1
    assert sorted(p.name for p in folder.glob("*.png")) == [f"page-{n:02d}.png" for n in range(1, pages + 1)]
    assert sum(last - first + 1 for first, last in counted) == pages - 1


def test_a_huge_page_is_rendered_within_the_pixel_budget_an_ordinary_one_at_its_dpi(tmp_path):
    """A 3400 pt square page (the PDF guard lets 3500 through) was 200 Mpx at 300 DPI: over a
    gigabyte in the web process for any reader asking for its page image."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format=(3400, 3400))
    pdf.add_page()
    pdf.set_font("Helvetica", size=40)
    pdf.text(100, 100, "Plateau")
    pdf.output(str(tmp_path / "huge.pdf"))
    folder = tmp_path / "images" / "huge"
    renderer = page_render.LazyRenderer(source=lambda f: tmp_path / "huge.pdf", dpi=300)

    with Image.open(page_render.ensure_page_image(folder, 1, renderer)) as image:
        assert image.width * image.height <= page_render.MAX_PAGE_PIXELS
        assert image.width >= 4000  # still a readable board: the budget, not a thumbnail

    a4 = rulebook_pdf(tmp_path / "a4.pdf", LOREM_RULES)
    assert page_render.capped_dpi(a4, 1, 2, 300) == 300


def test_prerendering_keeps_the_dpi_of_the_pages_beside_a_huge_one(tmp_path):
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page(format=(3400, 3400))  # a fold-out map
    pdf.add_page()
    pdf.output(str(tmp_path / "map.pdf"))
    folder = tmp_path / "images" / "map"

    page_render.render_all(tmp_path / "map.pdf", folder, dpi=150, threads=2)

    with Image.open(page_images.page_image_path(folder, 2)) as a4:
        assert abs(a4.width - 595.28 / 72 * 150) <= 1  # not lowered to the map's budget (105 DPI)
