"""INGEST_TABLE_ROWS is a setting like the others (oracle_site/feature_settings.py): it switches
the read stage's labelled table rows on and off, and a malformed value stops start-up. The read
child (ingest/stages/read_child.py) imports no Django: the worker hands it its setting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from fpdf import FPDF

from games.models import Chunk
from ingest.stages import read_child
from tests.ingest.pdfs import FONT
from tests.ingest.running import ingest_inline

ROW = "Joueurs 3 — Cartes en main: 5, Jetons Or: 10."


def table_pdf(path: Path) -> Path:
    """One page: a sentence, then a table of numbers with its row labels."""
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.add_font("DejaVu", "", FONT)
    pdf.set_font("DejaVu", "", 10)
    pdf.add_page()
    pdf.set_xy(50, 50)
    pdf.multi_cell(400, 14, "Mise en place : distribuez les cartes selon le nombre de joueurs.")
    rows = [("Joueurs", ["3", "4", "5"]), ("Cartes en main", ["5", "4", "3"]), ("Jetons Or", ["10", "12", "15"])]
    for i, (label, values) in enumerate(rows):
        pdf.text(50, 100 + i * 16, label)
        for j, value in enumerate(values):
            pdf.text(200 + j * 30, 100 + i * 16, value)
    pdf.output(str(path))
    return path


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("table_rows", [True, False])
def test_an_ingestion_follows_the_workers_setting_whatever_the_environment_says(tmp_path, settings, monkeypatch, table_rows):
    """The read child has no settings: the worker hands it its own."""
    monkeypatch.setenv("INGEST_TABLE_ROWS", "0" if table_rows else "1")
    settings.INGEST_TABLE_ROWS = table_rows

    job = ingest_inline(table_pdf(tmp_path / "table.pdf"), new_game_name="Tableaux")

    text = " ".join(Chunk.objects.filter(game=job.game).values_list("text", flat=True))
    assert "Jetons Or" in text
    assert (ROW in text) is table_rows


def test_the_read_child_reads_rows_only_when_asked(tmp_path):
    pdf = table_pdf(tmp_path / "table.pdf")

    [page] = list(read_child.read_pages(pdf, 1536, table_rows=True))
    assert ROW in page.text

    [page] = list(read_child.read_pages(pdf, 1536))
    assert ROW not in page.text and "Jetons Or" in page.text


def test_a_malformed_value_stops_start_up():
    result = subprocess.run(
        [sys.executable, "-c", "import oracle_site.feature_settings"],
        env={"PATH": "/usr/bin:/bin", "INGEST_TABLE_ROWS": "maybe"},
        cwd=django_settings.BASE_DIR,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "INGEST_TABLE_ROWS must be true or false, got 'maybe'" in result.stderr
