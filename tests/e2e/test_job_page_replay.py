"""The job page's script, replaying a job's stored events and following it live (no worker: the
test stores the events a worker would): a relaunched job shows its new run; a paused or
requeued job keeps its status, with no countdown; start times say their day; a scheduled job
that starts can be cancelled; a failed job does not promise the acts after the one it stopped
in; and the time left counts down from when its event was stored, not from a reload."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.formats import date_format
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from ingest.models import IngestEvent, IngestJob
from ingest.scheduling import schedule_ingest
from tests.e2e.conftest import SERVER_ENV, open_signed_in
from tests.factories import GameFactory, IngestJobFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

FAILED = {"message": "L'étape « Découpage » a échoué : boom.", "messages": {"fr": "L'étape « Découpage » a échoué : boom.", "en": "The « Chunking » step failed: boom."}}


@pytest.fixture
def live_daphne_env():
    return {**SERVER_ENV, "INGEST_SSE_FALLBACK_POLL_S": "0.2"}  # the server reads what the test stores


def act(job, name, state, done, total, elapsed=0.0):
    job.set_progress(name, state=state, done=done, total=total, elapsed=elapsed)
    return job.emit("act", {"act": name, "label": name, "state": state, "done": done, "total": total, "elapsed": elapsed})


def new_job(name, **fields):
    return IngestJobFactory(game=GameFactory(name=name), **{"status": IngestJob.Status.RUNNING, **fields})


def open_replayed(page, job):
    """The job's page once its script has shown every event stored so far (or stopped short of
    that: what it shows then is asserted)."""
    page.goto(f"/ingestion/{job.pk}/")
    last = job.events.order_by("-pk").first()
    try:
        page.wait_for_selector(f'#ingest-job[data-shown-event="{last.pk}"]', state="attached", timeout=5000)
    except PlaywrightTimeout:
        pass


def start_time(when):
    """« 21:30 (samedi 1 juin) »: the day, as the server writes it (ingest.views.start_time)."""
    return date_format(timezone.localtime(when), "H:i (l j F)")


def test_replayed_and_live_events_show_the_job_as_it_is(browser, live_daphne, alice):
    page = open_signed_in(browser, live_daphne, alice)
    status, remaining = page.locator("#job-status-label"), page.locator("#remaining")

    # Failed, relaunched, then done: the new run's end, not the old error.
    job = new_job("Relancé puis fini")
    act(job, "read", "started", 0, 2)
    job.emit("error", FAILED)
    job.emit("retry", {})
    for name in ("read", "chunk", "hierarchy", "context", "embed", "index"):
        act(job, name, "done", 2, 2, 0.1)
    job.emit("done", {"chunks": 2, "pages": 2, "ocr": 0, "stats": {}})
    job.transition(IngestJob.Status.DONE, finished_at=timezone.now())
    open_replayed(page, job)
    expect(status).to_have_text("Terminée")
    expect(page.locator("#job-done")).to_be_visible()
    expect(page.locator("#job-error")).to_be_hidden()

    # Failed, relaunched, running again: running, with its stop button and the acts to come.
    job = new_job("Relancé en cours")
    act(job, "read", "started", 0, 2)
    job.emit("error", FAILED)
    job.emit("retry", {})
    act(job, "read", "progress", 1, 2, 0.5)
    open_replayed(page, job)
    expect(status).to_have_text("En cours")
    expect(page.locator("#stop-slot")).to_be_visible()
    expect(page.locator("#job-error")).to_be_hidden()
    expect(page.locator(".act[data-act=read] .act-counts")).to_have_text("1/2")
    expect(page.locator(".act[data-act=chunk] .act-elapsed")).to_have_text("à venir")

    # Resting on a quota pause three days away: « Planifiée », its day, and nothing counting down.
    job = new_job("En pause")
    for name in ("read", "chunk", "hierarchy"):
        act(job, name, "done", 10, 10, 1.0)
    act(job, "context", "progress", 10, 40, 30.0)
    retry_at = timezone.now() + timedelta(days=3)
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJob.Status.SCHEDULED, pause_reason="quota", scheduled_at=retry_at)
    job.emit("quota_pause", {"resetAt": retry_at.isoformat(), "retryAt": retry_at.isoformat()})
    open_replayed(page, job)
    expect(status).to_have_text("Planifiée")
    expect(page.locator(".resting")).to_have_text(f"L'oracle se repose. Reprise prévue à {start_time(retry_at)}.")
    expect(remaining).to_have_text("")
    expect(page.locator("#stop-slot")).to_be_hidden()

    # Requeued after its worker died (no event says so): « En file », no countdown.
    job = new_job("Remis en file")
    act(job, "read", "progress", 9, 10, 5.0)
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJob.Status.QUEUED)
    job.emit("warning", {"message": "Le traitement a été interrompu ; il reprend là où il s'était arrêté."})
    open_replayed(page, job)
    expect(status).to_have_text("En file")
    expect(remaining).to_have_text("Estimation du temps restant…")

    # Scheduled three days ahead (its day shown), then started while its page is open: it can
    # be cancelled from there.
    job = new_job("Planifié", status=IngestJob.Status.QUEUED)
    when = timezone.now() + timedelta(days=3)
    schedule_ingest(job, when)
    open_replayed(page, job)
    expect(page.locator(".planned")).to_have_text(f"Ingestion prévue à {start_time(when)}")
    expect(page.locator("#stop-slot")).to_be_hidden()
    job.transition(IngestJob.Status.QUEUED)
    job.emit("resumed", {"reason": "user"})
    expect(page.locator("#stop-slot")).to_be_visible()
    expect(status).to_have_text("En file")
    job.transition(IngestJob.Status.RUNNING)
    act(job, "read", "progress", 5, 10, 1.0)
    expect(status).to_have_text("En cours")
    expect(page.locator("#stop-slot")).to_be_visible()

    # Fails in chunking while its page is open: that act stopped, none promised after it.
    job = new_job("Échoue")
    act(job, "read", "done", 2, 2, 0.3)
    act(job, "chunk", "started", 0, 2)
    open_replayed(page, job)
    expect(page.locator(".act:visible")).to_have_count(7 - 1)  # OCR's row shows only if OCR runs
    job.transition(IngestJob.Status.ERROR, error=FAILED["message"], finished_at=timezone.now())
    job.emit("error", FAILED)
    expect(page.locator("#job-error")).to_have_text(FAILED["message"])
    expect(page.locator(".act")).to_have_count(2)
    expect(page.locator(".act[data-act=chunk]")).to_have_attribute("data-state", "stopped")
    expect(page.locator(".act[data-act=chunk]")).to_contain_text("étape interrompue")
    expect(page.locator("#acts")).not_to_contain_text("à venir")
    expect(page.locator("#stop-slot")).to_be_hidden()


def minutes_left(page) -> int:
    text = page.locator("#remaining").inner_text()
    return int(re.search(r"(\d+) min", text).group(1))


def test_the_time_left_counts_down_from_when_its_event_was_stored(browser, live_daphne, alice):
    page = open_signed_in(browser, live_daphne, alice)
    job = new_job("Lent")
    for name in ("read", "chunk", "hierarchy", "context"):
        act(job, name, "done", 100, 100, 1.0)
    last = act(job, "embed", "progress", 10, 100, 60.0)  # 6 s a chunk: 9 min left for this act alone
    open_replayed(page, job)
    expect(page.locator("#remaining")).to_contain_text("min restantes")
    fresh = minutes_left(page)

    IngestEvent.objects.filter(pk=last.pk).update(created_at=last.created_at - timedelta(minutes=5))
    open_replayed(page, job)  # a reload 5 minutes after that event, with none since

    assert minutes_left(page) <= fresh - 4
