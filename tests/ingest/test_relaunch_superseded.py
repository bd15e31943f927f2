"""« Relancer » refuses a job only when the booklet serves a file uploaded after it: a
re-ingestion of the older served file is no newer upload."""

import pytest

from ingest import services
from ingest.models import IngestJob
from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf
from tests.ingest.running import ingest_inline

pytestmark = pytest.mark.django_db


def test_the_newest_upload_can_be_relaunched_after_a_reingest_of_the_served_pdf(client, alice, tmp_path, monkeypatch):
    v1 = ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", LOREM_RULES, per_page=1), new_game_name="Heat")
    game = v1.game
    v2 = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:2], per_page=1), game=game)
    v2.transition(IngestJob.Status.ERROR, error="L'étape « Analyse contextuelle » a échoué : timeout")
    client.force_login(alice)
    reingest = client.post(f"/api/booklets/{game.pk}/reingest")  # re-reads the served v1
    assert IngestJob.objects.get(pk=reingest.json()["job_id"]).status == IngestJob.Status.DONE
    monkeypatch.setattr(services, "enqueue", lambda job: None)

    response = client.post(f"/api/ingest/{v2.pk}/retry")

    assert response.status_code == 202, response.json()
    assert IngestJob.objects.get(pk=v2.pk).status == IngestJob.Status.QUEUED


def test_a_failed_upload_stays_refused_once_a_newer_upload_is_served(tmp_path, monkeypatch):
    v1 = ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", LOREM_RULES, per_page=1), new_game_name="Heat")
    game = v1.game
    v2 = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:2], per_page=1), game=game)
    v2.transition(IngestJob.Status.ERROR, error="timeout")
    v3 = ingest_inline(rulebook_pdf(tmp_path / "v3.pdf", LOREM_RULES[:3], per_page=1), game=game)
    services.reingest(v3.booklet)  # the served v3 read again: still newer than v2

    with pytest.raises(services.CannotRelaunch, match="plus récente"):
        services.relaunch(IngestJob.objects.get(pk=v2.pk))
