"""`manage.py ingest`: what the command refuses before writing anything, and Ctrl-C."""

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from games.models import Chunk, Extension
from ingest.models import IngestJob
from ingest.recovery import requeue_orphaned_jobs
from ingest.stages import embed
from tests.factories import GameFactory
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def run(*args):
    out = io.StringIO()
    call_command("ingest", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def heat():
    return GameFactory(name="Heat", slug="heat")


@pytest.mark.parametrize("kind", ["extension", "faq", "advanced_rules"])
def test_a_booklet_other_than_the_base_needs_its_name(tmp_path, heat, kind):
    """Unnamed, every booklet of a kind was one booklet: the FAQ replaced Storm Front."""
    run(str(rulebook_pdf(tmp_path / "storm.pdf", LOREM_RULES)), "--game", "heat", "--kind", "extension", "--name", "Storm Front")
    storm = Extension.objects.get(game=heat)
    chunks, pdf = set(Chunk.objects.filter(extension=storm).values_list("pk", flat=True)), storm.pdf.name

    with pytest.raises(CommandError) as refused:
        run(str(rulebook_pdf(tmp_path / "faq.pdf", LOREM_RULES)), "--game", "heat", "--kind", kind)

    assert str(refused.value) == f'--kind {kind} needs --name (the booklet\'s name, e.g. --name "Storm Front")'
    assert list(Extension.objects.filter(game=heat)) == [storm]
    storm.refresh_from_db()
    assert storm.pdf.name == pdf and set(Chunk.objects.filter(extension=storm).values_list("pk", flat=True)) == chunks
    assert IngestJob.objects.count() == 1  # Storm Front's


def test_a_bgg_id_for_an_existing_game_is_refused_as_the_api_ignores_it(tmp_path, heat):
    refusal = "^--bgg-id only goes with --new-game-name: change an existing game's BGG id in the admin$"
    with pytest.raises(CommandError, match=refusal):
        run(str(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)), "--game", "heat", "--bgg-id", "366013")

    heat.refresh_from_db()
    assert heat.bgg_id is None and not IngestJob.objects.exists()


def test_a_bgg_id_goes_to_the_new_game(tmp_path):
    run(str(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)), "--new-game-name", "Heat", "--bgg-id", "366013")

    assert IngestJob.objects.get().game.bgg_id == 366013


def test_a_folder_is_refused_in_one_line(tmp_path, heat):
    with pytest.raises(CommandError, match=f"^{tmp_path} is a folder: give the PDF file's path$"):
        run(str(tmp_path), "--game", "heat")

    with pytest.raises(CommandError, match=f"^{tmp_path / 'missing.pdf'}: no such file$"):
        run(str(tmp_path / "missing.pdf"), "--game", "heat")
    assert not IngestJob.objects.exists()


def test_ctrl_c_cancels_the_job_so_it_can_be_run_again_and_no_worker_finishes_it(tmp_path, heat, monkeypatch, capsys):
    pdf = rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES)
    real_embed = embed.embed_drafts

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # what Ctrl-C raises in the main thread, here mid-embedding

    monkeypatch.setattr(embed, "embed_drafts", interrupted)
    with pytest.raises(CommandError) as stopped:
        try:
            run(str(pdf), "--game", "heat")
        except KeyboardInterrupt:  # (uncaught, it would stop pytest itself)
            pytest.fail("Ctrl-C came out as a traceback")

    job = IngestJob.objects.get()
    assert str(stopped.value) == f"interrupted: job {job.pk} cancelled (« Relancer » in the admin resumes it)"
    assert job.status == IngestJob.Status.CANCELLED and job.finished_at is not None and not job.cancel_requested
    last = job.events.last()
    assert last.event == "error" and last.data["cancelled"] is True
    later = timezone.now() + timedelta(days=1)
    assert requeue_orphaned_jobs(now=later)["requeued"] == 0  # the web process's sweep leaves it alone
    assert IngestJob.objects.get().status == IngestJob.Status.CANCELLED

    monkeypatch.setattr(embed, "embed_drafts", real_embed)
    run(str(pdf), "--game", "heat")  # not refused as busy
    assert IngestJob.objects.filter(status=IngestJob.Status.DONE).count() == 1
    assert Chunk.objects.filter(game=heat).exists()
