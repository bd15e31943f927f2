"""The demo booklets keep their promises: a French rulebook with a two-column page, tables
and icons; an English expansion that overrides base rules by number; a scanned FAQ page
that only OCR can read; a question set whose gold pages hold the expected answers; and a
loader that can run at every start without duplicating anything."""

import json
import re
import subprocess
from functools import cache
from pathlib import Path

import pytesseract
import pytest
from django.core.management import call_command
from pdf2image import convert_from_path
from pdfminer.high_level import extract_pages
from pdfminer.layout import LTCurve, LTTextBox

from games.demo.loader import DEMO_DIR, read_manifest
from games.models import Extension, Game
from scripts import make_demo_pdfs

QUESTIONS_FILE = Path(__file__).resolve().parents[2] / "eval" / "demo_questions.jsonl"
MANIFEST = read_manifest()
PDFS = {booklet["slug"]: DEMO_DIR / booklet["file"] for booklet in MANIFEST["booklets"]}
BASE, EXPANSION, FAQ = (booklet["slug"] for booklet in MANIFEST["booklets"])
QUESTIONS = [json.loads(line) for line in QUESTIONS_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
# Sentences of the scanned FAQ that no other booklet says.
FAQ_ONLY_FACTS = (
    "décoller gratuitement",
    "port-céleste est une île avec un dépôt",
    "carte calme plat",
    "carnet de score",
    "ne paie plus d'entretien",
    "seul un ballon en vol",
)
STOPWORDS = {
    "avec", "dans", "pour", "sans", "sont", "plus", "puis", "mais", "elle", "vous", "leur", "cette", "quand",
    "from", "with", "only", "that", "then", "their", "when", "your", "instead",
}


def page_count(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


@cache
def text_layer(path: Path, page: int) -> str:
    return subprocess.run(
        ["pdftotext", "-f", str(page), "-l", str(page), str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


@cache
def ocr_text(path: Path, page: int) -> str:
    image = convert_from_path(str(path), dpi=300, first_page=page, last_page=page)[0]
    return pytesseract.image_to_string(image, lang="fra+eng")


def readable_text(booklet: str, page: int) -> str:
    """What a reader of the page gets: the text layer, or OCR when the page is a scan."""
    path = PDFS[booklet]
    text = text_layer(path, page)
    return text if text.strip() else ocr_text(path, page)


def key_words(hint: str) -> list[str]:
    words = re.findall(r"\w+", hint.lower())
    return [w for w in words if w.isdigit() or (len(w) >= 4 and w not in STOPWORDS)]


def missing_words(words: list[str], text: str) -> list[str]:
    flat = " ".join(text.lower().split())
    return [
        w for w in words
        if not (re.search(rf"(?<!\d){w}(?!\d)", flat) if w.isdigit() else w in flat)
    ]


# ---------------------------------------------------------------- the PDFs


def test_base_rulebook_has_between_8_and_12_pages():
    assert 8 <= page_count(PDFS[BASE]) <= 12


def test_expansion_has_between_3_and_5_pages():
    assert 3 <= page_count(PDFS[EXPANSION]) <= 5


def test_base_rulebook_has_numbered_sections_with_french_accents():
    text = "".join(text_layer(PDFS[BASE], page) for page in range(1, page_count(PDFS[BASE]) + 1))
    for heading in ("1. Présentation", "1.1 But du jeu", "4.3 La dérive", "5.6 Photographier", "9.2 Table de décompte"):
        assert heading in text


def test_components_table_lists_each_component_with_its_quantity_on_one_row():
    layout = subprocess.run(
        ["pdftotext", "-layout", "-f", "2", "-l", "2", str(PDFS[BASE]), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert re.search(r"Jetons Flamme \(gaz\)\s+40\s+Payer", layout)
    assert re.search(r"Cartes Vent\s+24\s+Dont 6 cartes Rafale", layout)


def test_two_column_page_has_text_boxes_in_two_separate_x_ranges():
    page = next(extract_pages(str(PDFS[BASE]), page_numbers=[6]))  # PDF page 7
    middle = page.width / 2
    boxes = [box for box in page if isinstance(box, LTTextBox)]
    left = [box for box in boxes if box.x1 < middle]
    right = [box for box in boxes if box.x0 > middle]
    paragraphs = [box for box in boxes if len(box.get_text()) > 80]
    assert all(box in left or box in right for box in paragraphs)  # none straddles the gutter
    assert sum(box in left for box in paragraphs) >= 2 and sum(box in right for box in paragraphs) >= 2
    assert "6.1 Trois couches" in "".join(box.get_text() for box in left)
    assert "Précision" in "".join(box.get_text() for box in right)


def test_icons_page_draws_each_icon_and_states_its_meaning():
    text = text_layer(PDFS[BASE], 8)
    for name, meaning in (
        ("Ancre", "Ravitailler"),
        ("Brume", "ne peut pas\nPhotographier"),
        ("Récifs", "interdit d'y Atterrir"),
        ("Courant ascendant", "monte"),
    ):
        assert name in text and meaning.split("\n")[0] in text
    page = next(extract_pages(str(PDFS[BASE]), page_numbers=[7]))
    drawings = [item for item in page if isinstance(item, LTCurve)]
    assert len(drawings) >= 9 * 2  # a frame and at least one shape per icon


def test_expansion_names_the_base_rules_it_overrides_and_the_base_has_them():
    expansion = "".join(text_layer(PDFS[EXPANSION], page) for page in range(1, 5))
    base = "".join(text_layer(PDFS[BASE], page) for page in range(1, 12))
    flat = " ".join(expansion.split())
    for rule, base_heading in (("4.3", "4.3 La dérive"), ("8.4", "8.4 Amerrissage"), ("9.1", "9.1 Fin de la partie")):
        assert f"This replaces rule {rule} of the base game" in flat
        assert base_heading in base


def test_faq_page_is_a_scan_without_text_layer():
    assert page_count(PDFS[FAQ]) == 1
    assert text_layer(PDFS[FAQ], 1).strip() == ""


@pytest.mark.slow
def test_tesseract_reads_the_scanned_faq():
    flat = " ".join(ocr_text(PDFS[FAQ], 1).lower().split())
    assert [fact for fact in FAQ_ONLY_FACTS if fact not in flat] == []


def test_generator_is_deterministic_and_the_committed_pdfs_are_up_to_date(tmp_path):
    first = make_demo_pdfs.build_all(tmp_path / "first")
    second = make_demo_pdfs.build_all(tmp_path / "second")
    for slug, path in first.items():
        assert path.read_bytes() == second[slug].read_bytes(), slug
        pages = page_count(path)
        assert pages == page_count(PDFS[slug])
        for page in range(1, pages + 1):
            assert text_layer(path, page) == text_layer(PDFS[slug], page), (slug, page)


# ---------------------------------------------------------------- the question set


def test_question_set_covers_languages_booklets_and_cross_lingual_questions():
    assert len(QUESTIONS) >= 40
    assert len({q["id"] for q in QUESTIONS}) == len(QUESTIONS)
    languages = {booklet["slug"]: booklet["language"] for booklet in MANIFEST["booklets"]}
    gold_langs = [{languages[g["booklet"]] for g in q["gold"]} for q in QUESTIONS]
    assert {q["lang"] for q in QUESTIONS} == {"fr", "en"}
    assert any(q["lang"] == "fr" and langs == {"en"} for q, langs in zip(QUESTIONS, gold_langs))
    assert any(q["lang"] == "en" and langs == {"fr"} for q, langs in zip(QUESTIONS, gold_langs))
    only = [{g["booklet"] for g in q["gold"]} for q in QUESTIONS]
    assert sum(booklets == {EXPANSION} for booklets in only) >= 8
    assert sum(booklets == {FAQ} for booklets in only) >= 5
    assert all(q["game"] == MANIFEST["game"]["slug"] for q in QUESTIONS)


@pytest.mark.parametrize("question", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_gold_page_contains_the_answer_hint(question):
    words = key_words(question["answer_hint"])
    assert words, "the hint needs at least one key word"
    for gold in question["gold"]:
        assert 1 <= gold["page"] <= page_count(PDFS[gold["booklet"]])
    for gold in question["gold"]:
        assert missing_words(words, readable_text(gold["booklet"], gold["page"])) == [], gold


# ---------------------------------------------------------------- load_demo


@pytest.mark.django_db
def test_load_demo_twice_creates_one_game_and_no_duplicate_booklets():
    call_command("load_demo", "--no-ingest")
    call_command("load_demo", "--no-ingest")

    game = Game.objects.get()
    assert game.slug == BASE and game.language == "fr"
    assert sorted(game.extensions.values_list("slug", "kind", "language")) == [
        (FAQ, "faq", "fr"),
        (EXPANSION, "extension", "en"),
    ]
    assert game.pdf_pages == page_count(PDFS[BASE])
    assert Path(game.pdf.path).read_bytes() == PDFS[BASE].read_bytes()
    assert Extension.objects.get(slug=FAQ).pdf_pages == 1



def test_facts_of_the_faq_are_in_no_text_layer():
    """So that an answer quoting them proves the OCR path."""
    for booklet in (BASE, EXPANSION):
        for page in range(1, page_count(PDFS[booklet]) + 1):
            flat = " ".join(text_layer(PDFS[booklet], page).lower().split())
            assert not [fact for fact in FAQ_ONLY_FACTS if fact in flat], (booklet, page)


@pytest.mark.slow
@pytest.mark.django_db
def test_load_demo_ingests_each_booklet_once_and_the_scanned_faq_answers_by_search():
    from games.indexing import sync_if_changed
    from ingest.models import IngestJob
    from runtime import components
    from questions.booklets import booklets_of
    from rag.retrieve import retrieve
    from runtime import components

    call_command("load_demo")  # Q_SYNC under pytest: each ingestion runs inline
    call_command("load_demo")

    jobs = IngestJob.objects.all()
    assert sorted(job.booklet.slug for job in jobs) == sorted(PDFS)
    assert {job.status for job in jobs} == {IngestJob.Status.DONE}, [job.error for job in jobs]
    assert Extension.objects.count() == 2
    game = Game.objects.get()
    store = components.vector_store()
    booklets = booklets_of(game, game.extensions.all())
    sync_if_changed(store, [b.collection for b in booklets])

    result = retrieve(
        "Que se passe-t-il si la carte Calme plat est révélée ?",
        store=store, embedder=components.embedder(), booklets=booklets,
    )
    # Only OCR can have put these words in the index (no text layer has them); the ranking
    # itself is the retrieval's business, so the page only has to be among the first results.
    top = [(chunk.booklet.slug, chunk.page_start, "calme plat" in chunk.text.lower()) for chunk in result.chunks[:3]]
    assert (FAQ, 1, True) in top


@pytest.mark.django_db
def test_a_booklet_is_queued_again_only_when_it_has_no_chunks_and_no_live_or_finished_job():
    from ingest.demo import needs_ingest
    from tests.factories import ChunkFactory, IngestJobFactory

    call_command("load_demo", "--no-ingest")
    game = Game.objects.get()
    base, expansion, faq = game.base_booklet, *(Extension.objects.get(slug=s).booklet for s in (EXPANSION, FAQ))
    assert needs_ingest(base) and needs_ingest(expansion) and needs_ingest(faq)

    ChunkFactory(game=game)
    IngestJobFactory(game=game, extension=expansion.extension, booklet_kind="extension", status="running")
    IngestJobFactory(game=game, extension=faq.extension, booklet_kind="faq", status="error")

    assert not needs_ingest(base)
    assert not needs_ingest(expansion)
    assert needs_ingest(faq)  # a failed ingestion is retried at the next start


@pytest.mark.django_db
def test_load_demo_still_creates_the_game_when_a_booklet_cannot_be_queued(settings, capsys):
    settings.UPLOAD_MAX_BYTES = 1024  # every demo PDF is refused by the ingestion's checks

    call_command("load_demo")

    assert Game.objects.get().slug == BASE and Extension.objects.count() == 2
    assert f"could not be queued (see the log): {BASE}, {EXPANSION}, {FAQ}." in capsys.readouterr().out
