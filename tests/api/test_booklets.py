"""/api/booklets: a booklet, its PDF and pages; its language changed and re-indexed; deleted
(out of retrieval at once, files and caches gone); read again from its PDF."""

import json
import os
from pathlib import Path

import pytest
from django.conf import settings

from games.models import Chunk, Extension
from ingest.models import IngestJob

pytestmark = pytest.mark.django_db


def patch(client, url, body):
    return client.patch(url, json.dumps(body), content_type="application/json")


def test_booklets_of_a_game_are_listed_and_filtered(player, heat):
    page = player.get(f"/api/games/{heat.pk}/booklets").json()
    assert page["count"] == 2 and [b["kind"] for b in page["items"]] == ["base", "extension"]
    only = player.get(f"/api/games/{heat.pk}/booklets", {"kind": "extension"}).json()
    assert [b["name"] for b in only["items"]] == ["Pluie"]


def test_a_booklet_serves_its_pdf_and_its_pages(player, heat):
    pdf = player.get(f"/api/booklets/{heat.pk}/pdf")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert b"".join(pdf.streaming_content).startswith(b"%PDF")
    image = player.get(f"/api/booklets/{heat.pk}/pages/1")
    assert image.status_code == 200 and image["Content-Type"].startswith("image/")
    assert player.get(f"/api/booklets/{heat.pk}/pages/99").status_code == 404


def test_a_booklet_not_read_yet_is_served_to_staff_only(player, admin, heat, client, bob, alice):
    """A first upload waiting for its reading, or one the PDF guard refused, has its PDF
    stored: players got it, and its pages rendered on demand."""
    base = heat.pk
    Chunk.objects.filter(game=heat, extension=None).delete()  # as before its first reading ends

    for url in (f"/api/booklets/{base}/pdf", f"/api/booklets/{base}/pages/1"):
        assert player.get(url).status_code == 404
        assert admin.get(url).status_code == 200
    client.force_login(bob)
    assert client.get(f"/booklets/{base}/pdf").status_code == 404
    assert client.get(f"/booklets/{base}/view").status_code == 404
    client.force_login(alice)
    assert client.get(f"/booklets/{base}/pdf").status_code == 200


def test_a_booklets_last_ingestion_is_shown_to_staff_only(player, admin, heat):
    """A failed job's error names the server's folders; the ingestions are staff's."""
    assert all(b["last_job"] is None for b in player.get(f"/api/games/{heat.pk}").json()["booklets"])
    assert player.get(f"/api/booklets/{heat.pk}").json()["last_job"] is None
    assert admin.get(f"/api/booklets/{heat.pk}").json()["last_job"]["status"] == "done"


def test_changing_the_language_reindexes_the_booklet(admin, heat, store):
    rain = Extension.objects.get(game=heat)

    response = patch(admin, f"/api/booklets/{rain.pk}", {"language": "en"})

    assert response.status_code == 200 and response.json()["language"] == "en"
    assert {c.payload["language"] for c in Chunk.objects.filter(extension=rain)} == {"en"}
    assert response.json()["index_state"] == "indexed"  # this process owns the index: synced now
    hit = next(iter(store.scroll(rain.booklet.collection)))
    assert hit.payload["language"] == "en"


def test_a_language_the_models_cannot_hold_is_refused(admin, heat):
    response = patch(admin, f"/api/booklets/{heat.pk}", {"language": "francais"})
    assert response.status_code == 422 and response.json()["errors"][0]["field"] == "language"


def test_deleting_a_booklet_takes_it_out_of_retrieval_at_once(admin, heat, store):
    rain = Extension.objects.get(game=heat)
    collection, slug = rain.booklet.collection, rain.slug
    pdf = Path(settings.MEDIA_ROOT) / rain.pdf.name
    caches = list(Path(settings.INGEST_CACHE_DIR).glob(f"*-{slug}*"))
    assert store.count(collection) and pdf.exists() and caches

    assert admin.delete(f"/api/booklets/{rain.pk}").status_code == 204

    assert store.count(collection) == 0
    assert not Chunk.objects.filter(collection=collection).exists() and not pdf.exists()
    assert not any(path.exists() for path in caches)
    assert Chunk.objects.filter(game=heat, extension=None).exists()  # the base rules stay
    assert admin.get(f"/api/booklets/{rain.pk}").status_code == 404


def test_deleting_the_base_booklet_leaves_the_game_without_rules(admin, heat, store):
    assert admin.delete(f"/api/booklets/{heat.pk}").status_code == 204

    heat.refresh_from_db()
    assert not heat.pdf and store.count(heat.base_booklet.collection) == 0
    booklet = admin.get(f"/api/booklets/{heat.pk}").json()
    assert booklet["index_state"] == "empty" and booklet["pdf_url"] is None


def test_reingesting_reads_the_stored_pdf_again(admin, heat):
    before = Chunk.objects.filter(game=heat, extension=None).count()

    response = admin.post(f"/api/booklets/{heat.pk}/reingest")

    assert response.status_code == 202
    job = IngestJob.objects.get(pk=response.json()["job_id"])
    assert job.status == IngestJob.Status.DONE and job.extension is None  # django-q2 runs it inline in tests
    assert Chunk.objects.filter(game=heat, extension=None).count() == before


def test_a_booklet_already_waiting_is_not_queued_twice(admin, heat):
    IngestJob.objects.create(game=heat, status=IngestJob.Status.QUEUED, pdf_path=heat.pdf.name)
    response = admin.post(f"/api/booklets/{heat.pk}/reingest")
    assert response.status_code == 409 and response.json()["detail"]



def test_deleting_a_booklet_drops_the_schedule_of_its_waiting_upload(admin, heat):
    from datetime import timedelta

    from django.utils import timezone
    from django_q.models import Schedule

    from ingest.scheduling import schedule_ingest

    rain = Extension.objects.get(game=heat)
    job = IngestJob.objects.create(game=heat, extension=rain, pdf_path=rain.pdf.name)
    schedule_ingest(job, timezone.now() + timedelta(hours=1))
    assert Schedule.objects.filter(func="ingest.scheduling.run_scheduled_job").exists()

    assert admin.delete(f"/api/booklets/{rain.pk}").status_code == 204

    assert not Schedule.objects.filter(func="ingest.scheduling.run_scheduled_job").exists()


def test_a_booklet_being_read_is_not_deleted(admin, heat):
    IngestJob.objects.create(game=heat, status=IngestJob.Status.RUNNING, pdf_path=heat.pdf.name)
    response = admin.delete(f"/api/booklets/{heat.pk}")
    assert response.status_code == 409 and Chunk.objects.filter(game=heat, extension=None).exists()


def test_deleting_the_base_booklet_leaves_no_job_to_relaunch(admin, heat):
    rain = Extension.objects.get(game=heat)
    cancelled = IngestJob.objects.create(game=heat, pdf_path=heat.pdf.name, status=IngestJob.Status.CANCELLED)
    IngestJob.objects.create(game=heat, pdf_path=heat.pdf.name, status=IngestJob.Status.QUEUED)

    assert admin.delete(f"/api/booklets/{heat.pk}").status_code == 204

    assert admin.get("/api/ingest", {"booklet_id": str(heat.pk)}).json()["count"] == 0
    assert admin.get(f"/api/booklets/{heat.pk}").json()["last_job"] is None
    assert admin.post(f"/api/ingest/{cancelled.pk}/retry").status_code == 404
    rain_jobs = admin.get("/api/ingest", {"booklet_id": str(rain.pk)}).json()
    assert rain_jobs["count"] == 1 and rain_jobs["items"][0]["status"] == "done"  # the expansion's stay


def test_a_job_whose_pdf_is_gone_is_not_relaunched_and_says_why(admin, heat):
    job = IngestJob.objects.create(game=heat, pdf_path="pdfs/heat-deleted.pdf", status=IngestJob.Status.CANCELLED)

    response = admin.post(f"/api/ingest/{job.pk}/retry")

    assert response.status_code == 409 and "téléversez à nouveau le livret" in response.json()["detail"]
    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED


def test_page_renders_are_rate_limited_but_a_page_already_rendered_is_not(player, heat, settings):
    """A render costs the web process a second or so of CPU: past RATE_LIMIT_RENDER_USER a
    client waits (429 with Retry-After); a page someone already rendered is still served."""
    settings.RATE_LIMIT_RENDER_USER = "1/m"
    assert player.get(f"/api/booklets/{heat.pk}/pages/1").status_code == 200  # rendered: one render counted

    refused = player.get(f"/api/booklets/{heat.pk}/pages/2")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Trop de requêtes" in refused.json()["detail"]
    assert player.get(f"/api/booklets/{heat.pk}/pages/1").status_code == 200  # no render: not counted


def test_a_user_past_the_render_limit_does_not_use_up_the_addresss_for_the_others(player, admin, heat, settings):
    """Per user first, then per address: bob refused by his own limit is not counted against
    the address a whole club may share, so alice, behind it too, still gets her page."""
    settings.RATE_LIMIT_RENDER_USER, settings.RATE_LIMIT_RENDER_IP = "1/m", "2/m"
    assert player.get(f"/api/booklets/{heat.pk}/pages/1").status_code == 200
    assert player.get(f"/api/booklets/{heat.pk}/pages/2").status_code == 429

    assert admin.get(f"/api/booklets/{heat.pk}/pages/2").status_code == 200


def test_a_page_rendered_from_an_older_upload_counts_as_a_render(player, heat, settings):
    settings.RATE_LIMIT_RENDER_USER = "1/m"
    assert player.get(f"/api/booklets/{heat.pk}/pages/1").status_code == 200
    pdf = Path(heat.pdf.path)
    later = pdf.stat().st_mtime + 60
    os.utime(pdf, (later, later))  # a new upload of the same booklet: its pages are rendered again

    assert player.get(f"/api/booklets/{heat.pk}/pages/1").status_code == 429
