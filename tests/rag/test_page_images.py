"""Page images are found whatever pdftoppm's zero padding, per folder, and a re-render is
noticed (the per-folder cache is invalidated)."""

import os

import pytest

from rag import page_images
from rag.answer import best_page_image
from rag.retrieve import BookletRef, RetrievedChunk


@pytest.fixture(autouse=True)
def fresh_cache():
    page_images.invalidate()
    yield
    page_images.invalidate()


def render(folder, names):
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize("names", [
    ["page-1.png", "page-2.png", "page-9.png"],
    ["page-01.png", "page-02.png", "page-09.png", "page-10.png"],
    ["page-001.png", "page-002.png", "page-009.png", "page-100.png"],
])
def test_page_is_found_whatever_the_padding(tmp_path, names):
    render(tmp_path / "heat", names)
    assert page_images.resolve_page_image(tmp_path / "heat", 2).name == names[1]
    assert page_images.resolve_page_image(tmp_path / "heat", 9).name == names[2]
    assert page_images.resolve_page_image(tmp_path / "heat", 3) is None


def test_missing_folder_means_no_image(tmp_path):
    assert page_images.resolve_page_image(tmp_path / "never-rendered", 1) is None


def test_a_re_render_with_another_padding_is_seen(tmp_path):
    folder = tmp_path / "heat"
    render(folder, ["page-1.png", "page-2.png"])
    assert page_images.resolve_page_image(folder, 2).name == "page-2.png"
    for old in folder.iterdir():
        old.unlink()
    render(folder, [f"page-{n:02d}.png" for n in range(1, 12)])
    assert page_images.resolve_page_image(folder, 2).name == "page-02.png"


def test_explicit_invalidation_drops_a_stale_map(tmp_path):
    folder = tmp_path / "heat"
    render(folder, ["page-1.png"])
    assert page_images.resolve_page_image(folder, 2) is None
    stamp = folder.stat().st_mtime_ns
    render(folder, ["page-2.png"])
    os.utime(folder, ns=(stamp, stamp))  # same mtime tick: only invalidate() can tell
    page_images.invalidate(folder)
    assert page_images.resolve_page_image(folder, 2).name == "page-2.png"


def chunk(booklet, page, score):
    return RetrievedChunk(id=f"{booklet.slug}{page}", booklet=booklet, score=score, fusion_score=score,
                          payload={"text": "…", "page_start": page, "page_end": page})


def test_best_image_is_chosen_per_booklet_and_page(tmp_path):
    heat = BookletRef("rules_heat", "heat", "HEAT", "base", tmp_path / "heat")
    rain = BookletRef("rules_heavy-rain", "heavy-rain", "Heavy Rain", "extension", tmp_path / "heavy-rain")
    render(heat.images_dir, ["page-04.png"])
    render(rain.images_dir, ["page-4.png"])
    image = best_page_image([chunk(heat, 4, 0.9), chunk(rain, 4, 1.2)], remote_root="/projet/boardgame-pdfs")
    assert (image.booklet_name, image.page) == ("Heavy Rain", 4)
    assert image.path == rain.images_dir / "page-4.png"
    assert image.prompt_path == "/projet/boardgame-pdfs/heavy-rain/page-4.png"
    local = best_page_image([chunk(heat, 4, 0.9)])
    assert local.prompt_path == str(heat.images_dir / "page-04.png")
