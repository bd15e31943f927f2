"""`DELETE /api/games/{id}/scheduled`: cancel an ingestion before it starts."""

from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone
from django_q.models import Schedule

from games.models import Chunk, Extension, Game
from ingest.models import IngestJob
from ingest.scheduling import schedule_ingest
from tests.factories import ChunkFactory, ExtensionFactory, GameFactory, IngestJobFactory
from tests.ingest.running import ingest_inline

pytestmark = pytest.mark.django_db


def scheduled_base_game(slug="heat") -> tuple[Game, IngestJob, Path]:
    game = GameFactory(name=slug.title(), slug=slug)
    game.pdf.save(f"{slug}.pdf", ContentFile(b"%PDF-1.4 scheduled"), save=True)
    job = IngestJobFactory(game=game, pdf_path=game.pdf.name, created_game=True)  # a new game's upload
    schedule_ingest(job, timezone.now() + timedelta(hours=3))
    return game, job, Path(settings.MEDIA_ROOT) / game.pdf.name


def url(game) -> str:
    return f"/api/games/{game.pk}/scheduled"


def test_cancelling_removes_the_schedule_the_pdf_and_the_game(client, alice):
    game, job, pdf = scheduled_base_game()
    assert pdf.exists()
    client.force_login(alice)

    response = client.delete(url(game))

    assert response.status_code == 200
    assert response.json() == {"job_id": str(job.pk), "deleted": "game"}
    assert not Game.objects.filter(pk=game.pk).exists()
    assert not pdf.exists()
    assert not Schedule.objects.filter(name=f"ingest-{job.pk}").exists()


def test_cancelling_the_first_upload_of_a_game_made_beforehand_keeps_the_game(client, alice, tmp_path):
    """A game made without rules (`POST /api/games`), its cards imported and questions asked,
    then its rulebook scheduled: cancelling the upload once deleted the game, and with it
    every card, question and conversation."""
    from questions.models import Question
    from tests.factories import QuestionFactory
    from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

    client.force_login(alice)
    game_id = client.post("/api/games", {"name": "Heat"}, content_type="application/json").json()["id"]
    game = Game.objects.get(pk=game_id)
    asked = QuestionFactory(game=game)
    when = timezone.now() + timedelta(days=1)
    with open(rulebook_pdf(tmp_path / "heat.pdf", LOREM_RULES), "rb") as pdf:
        upload = client.post("/api/games/ingest", {"pdf": pdf, "game_id": game_id, "scheduled_start_at": when.isoformat()})
    assert upload.status_code == 202, upload.content
    stored = Path(settings.MEDIA_ROOT) / IngestJob.objects.get(pk=upload.json()["job_id"]).pdf_path

    response = client.delete(url(game))

    assert response.json() == {"job_id": upload.json()["job_id"], "deleted": "job"}
    game.refresh_from_db()
    assert Question.objects.filter(pk=asked.pk).exists()
    assert not stored.exists() and not game.pdf.name  # the upload's file went, and the game's pointer to it
    assert not IngestJob.objects.filter(game=game).exists()


def test_cancelling_a_scheduled_expansion_keeps_the_game_and_its_rules(client, alice):
    game = GameFactory(slug="heat")
    rule = ChunkFactory(game=game)
    IngestJobFactory(game=game, status=IngestJob.Status.DONE)
    extension = ExtensionFactory(game=game, slug="heat-pedal")
    extension.pdf.save("heat-pedal.pdf", ContentFile(b"%PDF-1.4"), save=True)
    pdf = Path(settings.MEDIA_ROOT) / extension.pdf.name
    job = IngestJobFactory(game=game, extension=extension, booklet_kind="extension", pdf_path=extension.pdf.name)
    schedule_ingest(job, timezone.now() + timedelta(days=1))
    client.force_login(alice)

    response = client.delete(url(game))

    assert response.json()["deleted"] == "extension"
    assert not Extension.objects.filter(pk=extension.pk).exists()
    assert not pdf.exists()
    assert Chunk.objects.filter(pk=rule.pk).exists()
    assert Game.objects.filter(pk=game.pk).exists()


def test_a_game_that_is_not_scheduled_answers_409(client, alice):
    game = GameFactory()
    IngestJobFactory(game=game, status=IngestJob.Status.RUNNING)
    client.force_login(alice)

    response = client.delete(url(game))

    assert response.status_code == 409
    assert "planifiée" in response.json()["detail"]
    assert Game.objects.filter(pk=game.pk).exists()


def test_a_quota_paused_ingest_can_be_cancelled_too(client, alice):
    game, job, pdf = scheduled_base_game()
    IngestJob.objects.filter(pk=job.pk).update(pause_reason=IngestJob.PauseReason.QUOTA)
    client.force_login(alice)

    assert client.delete(url(game)).status_code == 200
    assert not pdf.exists()


def test_players_cannot_cancel(client, bob):
    game, _job, pdf = scheduled_base_game()
    client.force_login(bob)

    response = client.delete(url(game))

    assert response.status_code == 403
    assert pdf.exists()
    assert IngestJob.objects.get(game=game).status == IngestJob.Status.SCHEDULED


def test_unknown_game_is_404(client, alice):
    client.force_login(alice)

    assert client.delete("/api/games/00000000-0000-0000-0000-000000000000/scheduled").status_code == 404


@pytest.mark.parametrize("kind", ["base", "extension"])
def test_cancelling_a_scheduled_reupload_keeps_the_booklet_already_ingested(client, alice, tmp_path, kind):
    """Re-uploading an ingested booklet for later, then cancelling, leaves the booklet as it
    was: its rules, its PDF (citations open it), its page images."""
    from ingest import services
    from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

    base = ingest_inline(rulebook_pdf(tmp_path / "base.pdf", LOREM_RULES), new_game_name="Heat")
    game = base.game
    first = base if kind == "base" else ingest_inline(
        rulebook_pdf(tmp_path / "ext.pdf", LOREM_RULES[:2]), game=game, kind="extension", name="Tempête"
    )
    booklet = first.booklet
    owner = type(booklet.owner).objects.get(pk=booklet.owner.pk)
    rules = set(Chunk.objects.filter(ingest_job=first).values_list("pk", flat=True))
    old_pdf, pages = owner.pdf.name, owner.pdf_pages
    call_command("prerender_pages", booklet.slug, stdout=StringIO())
    images = sorted(p.name for p in booklet.images_dir.iterdir())
    assert rules and images

    again = services.create_ingest(
        pdf_path_or_file=rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:1], per_page=1), game=game, kind=kind, name="Tempête"
    )
    schedule_ingest(again, timezone.now() + timedelta(hours=3))
    new_pdf = Path(settings.MEDIA_ROOT) / again.pdf_path
    assert new_pdf.exists() and again.pdf_path != old_pdf
    client.force_login(alice)

    response = client.delete(url(game))

    assert response.status_code == 200 and response.json()["deleted"] == "job"
    owner.refresh_from_db()
    assert set(Chunk.objects.filter(ingest_job=first).values_list("pk", flat=True)) == rules
    assert (owner.pdf.name, owner.pdf_pages) == (old_pdf, pages)
    assert (Path(settings.MEDIA_ROOT) / old_pdf).exists() and not new_pdf.exists()
    assert sorted(p.name for p in booklet.images_dir.iterdir()) == images


def base_and_expansion_scheduled() -> tuple[Game, IngestJob, IngestJob]:
    """A new game's rulebook and its expansion, both uploaded for tonight."""
    game, base, _pdf = scheduled_base_game()
    extension = ExtensionFactory(game=game, slug="heat-pedal")
    extension.pdf.save("heat-pedal.pdf", ContentFile(b"%PDF-1.4"), save=True)
    expansion = IngestJobFactory(game=game, extension=extension, booklet_kind="extension", pdf_path=extension.pdf.name)
    schedule_ingest(expansion, timezone.now() + timedelta(hours=4))
    return game, base, expansion


def test_the_cancel_button_of_a_job_cancels_that_job_not_the_games_newest(client, alice):
    """The base booklet and an expansion both scheduled: « Annuler » on the base booklet's
    panel cancelled the expansion (the newest job of the game) and left the base to run."""
    game, base, expansion = base_and_expansion_scheduled()
    client.force_login(alice)
    panel = client.get("/ingestion/").content.decode()
    button = f'data-cancel-url="/api/ingest/{base.pk}/scheduled"'
    assert button in panel  # the page's button names the job

    response = client.delete(f"/api/ingest/{base.pk}/scheduled")

    assert response.status_code == 200, response.content
    assert response.json() == {"job_id": str(base.pk), "deleted": "job"}  # the game keeps its expansion
    assert not IngestJob.objects.filter(pk=base.pk).exists()
    expansion.refresh_from_db()
    assert expansion.status == IngestJob.Status.SCHEDULED
    assert Schedule.objects.filter(name=f"ingest-{expansion.pk}").exists()


def test_cancelling_by_game_refuses_to_guess_when_two_jobs_are_scheduled(client, alice):
    game, base, expansion = base_and_expansion_scheduled()
    client.force_login(alice)

    response = client.delete(url(game))

    assert response.status_code == 409
    detail = response.json()["detail"]
    assert "Plusieurs ingestions de ce jeu sont planifiées" in detail and str(base.pk) in detail and str(expansion.pk) in detail
    assert set(IngestJob.objects.filter(game=game).values_list("status", flat=True)) == {IngestJob.Status.SCHEDULED}


def test_cancelling_a_job_that_is_no_longer_scheduled_answers_409(client, alice):
    job = IngestJobFactory(status=IngestJob.Status.RUNNING)
    client.force_login(alice)

    response = client.delete(f"/api/ingest/{job.pk}/scheduled")

    assert response.status_code == 409 and "n'est pas planifiée" in response.json()["detail"]
    assert client.delete("/api/ingest/00000000-0000-0000-0000-000000000000/scheduled").status_code == 404


def test_two_cancels_of_one_job_at_once_the_second_is_told_it_is_cancelled(client, alice):
    """Both requests read the job before the first committed: the first deleted its row and
    the second answered 500 (the row it meant to re-read was gone)."""
    from ingest.scheduling import NotScheduled, cancel_scheduled_job

    _, job, _ = scheduled_base_game()
    first, second = IngestJob.objects.get(pk=job.pk), IngestJob.objects.get(pk=job.pk)
    cancel_scheduled_job(first)
    with pytest.raises(NotScheduled, match="vient d'être annulée"):
        cancel_scheduled_job(second)


def ingested_twice(tmp_path) -> tuple[Game, IngestJob, IngestJob]:
    """A rulebook read (3 pages), then its new version read and adopted (2 pages)."""
    from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

    v1 = ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", LOREM_RULES, per_page=1), new_game_name="Heat")
    v2 = ingest_inline(rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:2], per_page=1), game=v1.game)
    game = Game.objects.get(pk=v1.game.pk)
    assert (game.pdf.name, game.pdf_pages) == (v2.pdf_path, 2)
    return game, v1, v2


def paused_on_quota(job: IngestJob) -> None:
    from ingest.quota_pause import pause_for_quota
    from rag.llm.base import ClaudeQuotaError

    assert pause_for_quota(job, ClaudeQuotaError(timezone.now() + timedelta(hours=2))) is not None


def test_cancelling_a_quota_paused_reingestion_keeps_the_pdf_its_rules_were_read_from(client, alice, tmp_path, monkeypatch):
    """« Réingérer » re-reads the PDF the booklet serves; paused on the LLM quota, then
    cancelled, it switched the booklet back to the older v1 PDF beside v2's rules (citations
    opened the wrong pages) and deleted v2's file."""
    from ingest import services

    game, v1, v2 = ingested_twice(tmp_path)
    rules = set(Chunk.objects.filter(game=game, extension=None).values_list("pk", flat=True))
    monkeypatch.setattr(services, "enqueue", lambda job: None)
    client.force_login(alice)
    job = IngestJob.objects.get(pk=client.post(f"/api/booklets/{game.pk}/reingest").json()["job_id"])
    paused_on_quota(job)

    response = client.delete(f"/api/ingest/{job.pk}/scheduled")

    assert response.json() == {"job_id": str(job.pk), "deleted": "job"}
    game.refresh_from_db()
    assert (game.pdf.name, game.pdf_pages) == (v2.pdf_path, 2)
    media = Path(settings.MEDIA_ROOT)
    assert (media / v2.pdf_path).exists() and (media / v1.pdf_path).exists()
    assert set(Chunk.objects.filter(game=game, extension=None).values_list("pk", flat=True)) == rules


def test_cancelling_a_paused_relaunch_whose_earlier_attempt_swapped_keeps_the_booklet(client, alice, tmp_path, monkeypatch):
    """v2's rows were swapped in, then its run failed after the swap; relaunched, it paused on
    the quota. Cancelling it deleted the booklet's rules (they are v2's) and gave it v1's PDF."""
    from ingest import services

    game, v1, v2 = ingested_twice(tmp_path)
    rules = set(Chunk.objects.filter(ingest_job=v2).values_list("pk", flat=True))
    assert rules
    v2.transition(IngestJob.Status.ERROR, error="the index could not be synced")
    monkeypatch.setattr(services, "enqueue", lambda job: None)
    assert services.retry(v2)
    paused_on_quota(v2)
    client.force_login(alice)

    response = client.delete(f"/api/ingest/{v2.pk}/scheduled")

    assert response.json() == {"job_id": str(v2.pk), "deleted": "job"}
    game.refresh_from_db()
    assert (game.pdf.name, game.pdf_pages) == (v2.pdf_path, 2)
    assert (Path(settings.MEDIA_ROOT) / v2.pdf_path).exists()
    assert set(Chunk.objects.filter(game=game, extension=None).values_list("pk", flat=True)) == rules


def test_cancelling_an_upload_the_booklet_was_pointed_at_gives_back_its_previous_pdf(client, alice, tmp_path):
    """A re-upload scheduled before booklet replacements waited beside the old PDF pointed the
    booklet at the new file at once: cancelling it still points the booklet back."""
    from ingest import services
    from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

    base = ingest_inline(rulebook_pdf(tmp_path / "v1.pdf", LOREM_RULES, per_page=1), new_game_name="Heat")
    game = base.game
    again = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "v2.pdf", LOREM_RULES[:2], per_page=1), game=game)
    Game.objects.filter(pk=game.pk).update(pdf=again.pdf_path, pdf_pages=2)  # as such an upload left it
    schedule_ingest(again, timezone.now() + timedelta(hours=3))
    client.force_login(alice)

    response = client.delete(f"/api/ingest/{again.pk}/scheduled")

    assert response.json()["deleted"] == "job"
    game.refresh_from_db()
    assert (game.pdf.name, game.pdf_pages) == (base.pdf_path, 3)
    assert not (Path(settings.MEDIA_ROOT) / again.pdf_path).exists()


def schedule_expansion_of_a_new_game(client, tmp_path) -> IngestJob:
    from tests.ingest.pdfs import LOREM_RULES, rulebook_pdf

    when = timezone.now() + timedelta(days=1)
    with open(rulebook_pdf(tmp_path / "pluie.pdf", LOREM_RULES), "rb") as pdf:
        response = client.post("/api/games/ingest", {
            "pdf": pdf, "new_game_name": "Brand New", "kind": "extension", "name": "Pluie", "scheduled_start_at": when.isoformat(),
        })
    assert response.status_code == 202, response.content
    return IngestJob.objects.get(pk=response.json()["job_id"])


def test_cancelling_a_scheduled_expansion_uploaded_under_a_new_games_name_deletes_the_game(client, alice, tmp_path):
    """The upload created the game « Brand New » for its expansion: cancelling it left an
    empty game behind, listed on the pages with no booklet."""
    client.force_login(alice)
    job = schedule_expansion_of_a_new_game(client, tmp_path)
    stored = Path(settings.MEDIA_ROOT) / job.pdf_path

    response = client.delete(f"/api/ingest/{job.pk}/scheduled")

    assert response.json() == {"job_id": str(job.pk), "deleted": "game"}
    assert not Game.objects.filter(name="Brand New").exists()
    assert not stored.exists()


def test_cancelling_that_expansion_keeps_the_new_game_once_it_holds_other_work(client, alice, tmp_path):
    client.force_login(alice)
    job = schedule_expansion_of_a_new_game(client, tmp_path)
    ChunkFactory(game=job.game, is_forum=True)  # its BGG forum synced meanwhile

    response = client.delete(f"/api/ingest/{job.pk}/scheduled")

    assert response.json()["deleted"] == "extension"
    assert Game.objects.filter(pk=job.game_id).exists() and not Extension.objects.filter(pk=job.extension_id).exists()
