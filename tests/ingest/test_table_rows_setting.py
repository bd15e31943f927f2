"""INGEST_TABLE_ROWS is a setting like the others (oracle_site/feature_settings.py): it switches
the read stage's labelled table rows on and off, and a malformed value stops start-up. The read
child (ingest/stages/read_child.py) imports no Django: the worker hands it its setting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from django.conf import settings as django_settings
from fpdf import FPDF

from ingest.stages import read_child
from ingest.stages.read import read_pages
from tests.ingest.pdfs import FONT

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


def test_the_setting_switches_table_rows_on_and_off(tmp_path, settings, monkeypatch):
    pdf = table_pdf(tmp_path / "table.pdf")
    monkeypatch.setenv("INGEST_TABLE_ROWS", "1")  # with Django's settings, the setting decides

    settings.INGEST_TABLE_ROWS = False
    [page] = list(read_pages(pdf))
    assert ROW not in page.text and "Jetons Or" in page.text

    settings.INGEST_TABLE_ROWS = True
    [page] = list(read_pages(pdf))
    assert ROW in page.text


def test_the_read_child_follows_the_workers_setting(tmp_path, settings, monkeypatch):
    """The child has no settings: the worker hands it its own, whatever the environment says."""
    pdf = table_pdf(tmp_path / "table.pdf")
    monkeypatch.setenv("INGEST_TABLE_ROWS", "0")

    settings.INGEST_TABLE_ROWS = True
    [page] = list(read_child.read_pages(pdf, 1536))
    assert ROW in page.text

    settings.INGEST_TABLE_ROWS = False
    monkeypatch.setenv("INGEST_TABLE_ROWS", "1")
    [page] = list(read_child.read_pages(pdf, 1536))
    assert ROW not in page.text


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
