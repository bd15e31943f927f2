"""An upload of a booklet that already has an ingestion queued, running or scheduled is refused
(409 from the API, a form error in the admin) and writes nothing: two jobs on one booklet read
it at the same time and the later one's rules replaced the other's while it still ran."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from ingest import services
from ingest.models import IngestJob
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

pytestmark = pytest.mark.django_db


def stored_pdfs() -> set[str]:
    folder = Path(settings.PDF_DIR)
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


def busy_booklet(tmp_path, status, kind="base", name=None) -> IngestJob:
    """A booklet whose first upload's job is still `status` (its worker has it, or it waits)."""
    base = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    if kind == "base":
        base.transition(status)
        return base
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "ext.pdf", LOREM_RULES[:2]), game=base.game, kind=kind, name=name)
    job.transition(status)
    return job


@pytest.mark.parametrize("status", [IngestJob.Status.RUNNING, IngestJob.Status.QUEUED, IngestJob.Status.SCHEDULED])
def test_the_api_refuses_a_second_upload_of_a_busy_booklet(client, alice, tmp_path, status):
    running = busy_booklet(tmp_path, status)
    before = stored_pdfs()
    client.force_login(alice)

    with open(rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:1]), "rb") as pdf:
        response = client.post("/api/games/ingest", {"pdf": pdf, "game_id": str(running.game_id), "kind": "base"})

    assert response.status_code == 409, response.content
    assert "déjà planifiée, en file ou en cours" in response.json()["detail"]
    assert list(IngestJob.objects.values_list("pk", flat=True)) == [running.pk]
    assert stored_pdfs() == before  # the refused file was not kept


def test_an_expansion_being_read_refuses_its_own_reupload_but_not_another_booklets(client, alice, tmp_path):
    running = busy_booklet(tmp_path, IngestJob.Status.RUNNING, kind="extension", name="Tempête")
    client.force_login(alice)

    with open(rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:1]), "rb") as pdf:
        again = client.post("/api/games/ingest", {"pdf": pdf, "game_id": str(running.game_id), "kind": "extension", "name": "tempête"})
    with open(rulebook_pdf(tmp_path / "faq.pdf", LOREM_RULES[:1]), "rb") as pdf:
        other = client.post("/api/games/ingest", {"pdf": pdf, "game_id": str(running.game_id), "kind": "faq", "name": "FAQ"})

    assert again.status_code == 409
    assert other.status_code == 202, other.content  # another booklet of the game is not busy


def test_a_finished_job_does_not_block_the_next_upload(client, alice, tmp_path):
    done = busy_booklet(tmp_path, IngestJob.Status.DONE)
    client.force_login(alice)

    with open(rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:1]), "rb") as pdf:
        response = client.post("/api/games/ingest", {"pdf": pdf, "game_id": str(done.game_id)})

    assert response.status_code == 202, response.content


def test_the_admin_upload_form_says_a_job_is_in_progress_and_keeps_what_was_typed(client, alice, tmp_path):
    running = busy_booklet(tmp_path, IngestJob.Status.RUNNING, kind="extension", name="Tempête")
    before = stored_pdfs()
    client.force_login(alice)
    pdf = SimpleUploadedFile("v2.pdf", rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:1]).read_bytes())

    response = client.post(
        "/admin/ingest/ingestjob/add/",
        {"game": running.game_id, "kind": "extension", "name": "Tempête", "language": "fr", "pdf": pdf},
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert "Une ingestion de ce livret est déjà planifiée, en file ou en cours" in page
    assert 'value="Tempête"' in page  # the form comes back filled in
    assert IngestJob.objects.count() == 2 and stored_pdfs() == before


def test_the_refused_admin_form_keeps_its_pdf_and_starts_with_it_once_the_booklet_is_free(client, alice, tmp_path):
    """A browser never fills a file field again: the server keeps the refused PDF, the form
    names it, and submitting the form again without choosing it uses that file."""
    running = busy_booklet(tmp_path, IngestJob.Status.RUNNING, kind="extension", name="Tempête")
    client.force_login(alice)
    fields = {"game": running.game_id, "kind": "extension", "name": "Tempête", "language": "fr"}
    v2 = rulebook_pdf(tmp_path / "tempete-v2.pdf", LOREM_RULES[:1]).read_bytes()

    refused = client.post("/admin/ingest/ingestjob/add/", {**fields, "pdf": SimpleUploadedFile("tempete-v2.pdf", v2)})

    page = refused.content.decode()
    assert "PDF gardé : « tempete-v2.pdf »" in page
    token = re.search(r'name="held" value="([0-9a-f]{32})"', page).group(1)
    running.transition(IngestJob.Status.DONE)

    started = client.post("/admin/ingest/ingestjob/add/", {**fields, "held": token})

    assert started.status_code == 302
    job = IngestJob.objects.latest("created_at")
    assert job.pk != running.pk and (Path(settings.MEDIA_ROOT) / job.pdf_path).read_bytes() == v2
    assert not (Path(settings.MEDIA_ROOT) / "held" / f"{token}.pdf").exists()  # its own copy is stored


@pytest.mark.parametrize("held", ["0" * 32, "../pdfs/heat", "0" * 32 + "\n", ""])
def test_the_admin_form_without_a_pdf_or_a_kept_one_asks_for_it(client, alice, held):
    client.force_login(alice)

    response = client.post("/admin/ingest/ingestjob/add/", {"new_game_name": "Heat", "kind": "base", "held": held})

    assert response.status_code == 200 and IngestJob.objects.count() == 0
    assert "Ce champ est obligatoire" in response.content.decode()


def test_a_new_file_sent_after_a_refusal_replaces_the_kept_one(client, alice, tmp_path):
    running = busy_booklet(tmp_path, IngestJob.Status.RUNNING, kind="extension", name="Tempête")
    client.force_login(alice)
    fields = {"game": running.game_id, "kind": "extension", "name": "Tempête", "language": "fr"}
    pdf = rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:1]).read_bytes()
    first = client.post("/admin/ingest/ingestjob/add/", {**fields, "pdf": SimpleUploadedFile("v2.pdf", pdf)})
    token = re.search(r'name="held" value="([0-9a-f]{32})"', first.content.decode()).group(1)

    second = client.post("/admin/ingest/ingestjob/add/", {**fields, "held": token, "pdf": SimpleUploadedFile("v3.pdf", pdf)})

    assert "PDF gardé : « v3.pdf »" in second.content.decode()
    assert [p.name for p in (Path(settings.MEDIA_ROOT) / "held").glob("*.pdf")] != [f"{token}.pdf"]
    assert len(list((Path(settings.MEDIA_ROOT) / "held").glob("*.pdf"))) == 1


@pytest.mark.django_db(transaction=True)  # two connections, as two requests
def test_two_first_uploads_of_an_expansion_at_once_make_one_job_and_one_refusal(tmp_path):
    """Each created the expansion before the game row was locked: on PostgreSQL the second
    failed on the booklet's unique slug (a 500) instead of being told the booklet is busy."""
    import threading

    from django.db import connection

    base = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), new_game_name="Heat")
    pdfs = [rulebook_pdf(tmp_path / f"ext{n}.pdf", LOREM_RULES[:2]) for n in range(2)]
    start, outcomes = threading.Barrier(2), []

    def upload(pdf):
        try:
            start.wait()
            services.create_ingest(pdf_path_or_file=pdf, game=base.game, kind="extension", name="Tempête")
            outcomes.append("job")
        except Exception as exc:  # noqa: BLE001 - what the request would have turned into its answer
            outcomes.append(type(exc).__name__)
        finally:
            connection.close()

    threads = [threading.Thread(target=upload, args=(pdf,)) for pdf in pdfs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["BookletBusy", "job"]
    assert IngestJob.objects.filter(game=base.game, extension__isnull=False).count() == 1


def test_a_kept_pdf_older_than_a_day_is_not_used(client, alice, tmp_path):
    import os

    from ingest import held_uploads

    client.force_login(alice)
    token = held_uploads.hold(SimpleUploadedFile("v2.pdf", rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:1]).read_bytes()))
    old = held_uploads.held(token)[0].stat().st_mtime - held_uploads.HELD_TTL_S - 60
    os.utime(held_uploads.held(token)[0], (old, old))

    response = client.post("/admin/ingest/ingestjob/add/", {"new_game_name": "Heat", "kind": "base", "held": token})

    assert "Ce champ est obligatoire" in response.content.decode() and IngestJob.objects.count() == 0
