"""What a deleted booklet leaves of its ingestion jobs: nothing to relaunch (its PDF is gone);
a game whose booklet is being read is refused whole, before anything changes; and « Relancer »
on a job whose PDF is no longer stored says why instead of queueing a run that can only fail."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.models import Schedule

from games import services as game_services
from games.models import Game
from ingest import services
from ingest.models import IngestJob
from ingest.quota_pause import schedule_name
from ingest.scheduling import schedule_ingest
from tests.factories import ExtensionFactory, GameFactory, IngestJobFactory

pytestmark = pytest.mark.django_db


def test_a_deleted_base_booklet_takes_its_jobs_and_leaves_its_expansions(tmp_path):
    heat = GameFactory(name="Heat")
    rain = ExtensionFactory(game=heat, name="Pluie")
    IngestJobFactory(game=heat, status=IngestJob.Status.CANCELLED, pdf_path="pdfs/heat.pdf")
    waiting = schedule_ingest(IngestJobFactory(game=heat, status=IngestJob.Status.QUEUED), timezone.now() + timedelta(hours=1))
    kept = IngestJobFactory(game=heat, extension=rain, booklet_kind="extension", status=IngestJob.Status.DONE)

    game_services.delete_booklet(heat.base_booklet)

    assert list(IngestJob.objects.filter(game=heat)) == [kept]
    assert not Schedule.objects.filter(name=schedule_name(waiting)).exists()


def test_a_game_with_a_booklet_being_read_is_refused_before_anything_changes():
    heat = GameFactory(name="Heat")
    rain = ExtensionFactory(game=heat, name="Pluie")
    waiting = schedule_ingest(IngestJobFactory(game=heat, status=IngestJob.Status.QUEUED), timezone.now() + timedelta(hours=1))
    running = IngestJobFactory(game=heat, extension=rain, booklet_kind="extension", status=IngestJob.Status.RUNNING)

    with pytest.raises(game_services.BookletBusy, match=str(running.pk)):
        game_services.delete_game(heat)

    waiting.refresh_from_db()
    assert waiting.status == IngestJob.Status.SCHEDULED and Schedule.objects.filter(name=schedule_name(waiting)).exists()
    assert Game.objects.filter(pk=heat.pk).exists() and rain.booklet in heat.booklets()


def test_relaunching_a_job_whose_pdf_is_gone_says_why_and_queues_nothing():
    job = IngestJobFactory(status=IngestJob.Status.ERROR, pdf_path="pdfs/gone.pdf", error="boom")

    with pytest.raises(services.CannotRelaunch, match="téléversez à nouveau le livret"):
        services.relaunch(job)

    job.refresh_from_db()
    assert job.status == IngestJob.Status.ERROR and not job.events.filter(event="retry").exists()


def test_relaunching_a_finished_job_says_which_jobs_can_be():
    with pytest.raises(services.CannotRelaunch, match="Seule une ingestion en erreur"):
        services.relaunch(IngestJobFactory(status=IngestJob.Status.DONE))


def test_the_admin_retry_action_says_why_a_job_cannot_run_again(client, alice):
    import html

    job = IngestJobFactory(game=GameFactory(name="Heat"), status=IngestJob.Status.ERROR, pdf_path="pdfs/gone.pdf")
    client.force_login(alice)

    response = client.post("/admin/ingest/ingestjob/", {"action": "retry_jobs", "_selected_action": [str(job.pk)]}, follow=True)

    page = html.unescape(response.content.decode())
    assert response.status_code == 200 and "« Heat » : Le PDF de cette ingestion n'est plus enregistré" in page
    job.refresh_from_db()
    assert job.status == IngestJob.Status.ERROR
