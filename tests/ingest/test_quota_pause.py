"""An LLM quota hit during contextual sentences pauses the job; the resumption after the
reset finishes it without asking any chunk twice (docs/architecture.md, decision 4)."""

import re
import threading
import time
from collections import Counter
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.utils import timezone
from django_q.models import Schedule
from django_q.scheduler import scheduler

from games.models import Chunk
from ingest import services
from ingest.models import IngestJob
from ingest.quota_pause import pending_schedule
from ingest.stages import hierarchy
from rag.llm.base import ClaudeQuotaError, HealthReport
from runtime import components
from tests.ingest.pdfs import rulebook_pdf

pytestmark = pytest.mark.django_db

RESET_AT = datetime(2030, 1, 7, 15, 0, tzinfo=dt_timezone.utc)
SECTIONS = [
    (
        f"{n}. Règle numéro {n}",
        [
            f"Paragraphe de la règle {n} : le joueur actif résout l'effet {n} puis défausse une carte. "
            f"Si la réserve {n} est vide, il pioche à la place deux cartes de la pioche commune et "
            f"avance son pion de {n} cases sur la piste de score."
        ],
    )
    for n in range(1, 15)
]


class QuotaLLM:
    """A Claude subscription with `budget` calls left before its quota is exhausted.

    Implements rag.llm.base's protocol. Calls take a little time so the pool really runs
    several at once, as SSH sessions do; every call is counted by passage."""

    name = "quota-double"
    available = True

    def __init__(self, budget: int):
        self.budget = budget
        self.lock = threading.Lock()
        self.answered: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()

    def complete(self, system, prompt, *, model="sonnet", timeout=None) -> str:
        what = "hierarchy" if system == hierarchy.HIERARCHY_SYSTEM else passage_of(prompt)
        with self.lock:
            if self.budget <= 0:
                self.refused[what] += 1
                raise ClaudeQuotaError(RESET_AT, "You've hit your usage limit · resets 3pm (UTC)")
            self.budget -= 1
        time.sleep(0.02)
        with self.lock:
            self.answered[what] += 1
        return "[]" if what == "hierarchy" else "Cette règle décrit un effet du tour de jeu."

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        yield self.complete(system, prompt, model=model, timeout=timeout)

    def health(self) -> HealthReport:
        return HealthReport(status="ok" if self.budget > 0 else "down", detail="quota double")

    def reset_quota(self) -> None:
        with self.lock:
            self.budget = 10_000


def passage_of(prompt: str) -> str:
    return prompt.rsplit("Passage à situer :\n", 1)[-1]


@pytest.fixture
def llm(monkeypatch, settings):
    settings.INGEST_LLM_CONCURRENCY = 3
    double = QuotaLLM(budget=1 + 5)  # the outline, then 5 contextual sentences
    monkeypatch.setattr(components, "llm_backend", lambda: double)
    return double


def start_ingest(tmp_path) -> IngestJob:
    job = services.create_ingest(pdf_path_or_file=rulebook_pdf(tmp_path / "regles.pdf", SECTIONS), new_game_name="Quota")
    services.enqueue(job)  # runs inline under pytest
    job.refresh_from_db()
    return job


def fire_due_schedules(job: IngestJob) -> None:
    """Let the retry time come, then run the cluster's scheduler loop once."""
    Schedule.objects.filter(name=f"ingest-{job.pk}").update(next_run=timezone.now() - timedelta(seconds=1))
    scheduler()


def test_a_quota_hit_in_the_middle_of_contexts_pauses_the_job_until_reset_plus_two_minutes(tmp_path, llm):
    job = start_ingest(tmp_path)

    assert job.status == IngestJob.Status.SCHEDULED
    assert job.pause_reason == IngestJob.PauseReason.QUOTA
    assert job.error == ""
    assert job.scheduled_at == RESET_AT + timedelta(minutes=2)
    assert pending_schedule(job).next_run == RESET_AT + timedelta(minutes=2)
    pause = job.events.get(event="quota_pause")
    assert pause.data == {"resetAt": "2030-01-07T15:00:00+00:00", "retryAt": "2030-01-07T15:02:00+00:00"}
    assert not job.events.filter(event="error").exists()
    assert sum(llm.answered.values()) == 6 and llm.refused
    assert not Chunk.objects.filter(game=job.game).exists()  # nothing half-written


def test_the_job_page_shows_the_resting_panel_with_the_retry_time(tmp_path, llm, client, alice, settings):
    settings.TIME_ZONE = "UTC"
    job = start_ingest(tmp_path)
    client.force_login(alice)

    page = client.get(f"/ingestion/{job.pk}/").content.decode()

    page = page.replace("&#x27;", "'")
    assert re.search(r"L'oracle se repose\. Reprise prévue à 15:02( \(\w+ \d+ \w+\))?\.", page)  # the day: unless today


def test_the_resumed_job_finishes_and_asks_each_chunk_exactly_once(tmp_path, llm):
    job = start_ingest(tmp_path)
    llm.reset_quota()

    fire_due_schedules(job)

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    chunks = list(Chunk.objects.filter(game=job.game))
    assert len(chunks) == job.stats["chunks"] > 6
    asked = {passage: n for passage, n in llm.answered.items() if passage != "hierarchy"}
    assert len(asked) == len(chunks)
    assert set(asked.values()) == {1}, "a chunk was asked again after the resumption"
    assert llm.answered["hierarchy"] == 1
    assert all("Cette règle décrit un effet du tour de jeu." in c.context for c in chunks)
    assert [e.event for e in job.events.filter(event__in=["quota_pause", "resumed", "done"])] == [
        "quota_pause",
        "resumed",
        "done",
    ]
    assert pending_schedule(job) is None


def test_a_second_quota_hit_during_the_resumption_pauses_again_and_keeps_progress(tmp_path, llm):
    job = start_ingest(tmp_path)
    llm.budget = 3

    fire_due_schedules(job)

    job.refresh_from_db()
    assert (job.status, job.pause_reason) == (IngestJob.Status.SCHEDULED, IngestJob.PauseReason.QUOTA)
    assert job.events.filter(event="quota_pause").count() == 2
    llm.reset_quota()
    fire_due_schedules(job)
    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert set(n for p, n in llm.answered.items()) == {1}


def test_cancelling_a_paused_job_removes_its_caches_and_only_its_own(tmp_path, llm, client, alice, settings):
    """Caches are kept for the resumption of a paused (or the retry of a failed) job; once
    the job is cancelled they are of no use, and nothing of the booklet stays on disk."""
    job = start_ingest(tmp_path)
    cache_dir = settings.INGEST_CACHE_DIR
    own = sorted(p.name for p in cache_dir.iterdir())
    assert "contexts-v2-quota.json" in own and "hierarchy-v1-quota.json" in own  # what the resumption would reuse
    neighbour = cache_dir / "contexts-v2-quota-storm.json"  # another booklet whose slug starts the same
    neighbour.write_text("{}")
    client.force_login(alice)

    response = client.delete(f"/api/games/{job.game_id}/scheduled")

    assert response.status_code == 200 and response.json()["deleted"] == "game"
    assert sorted(p.name for p in cache_dir.iterdir()) == [neighbour.name]


def test_a_cancel_asked_just_before_a_quota_hit_ends_the_job_cancelled_for_good(tmp_path, llm, monkeypatch):
    """« Annuler l'ingestion » clicked while the contextual sentences were asked, and the quota
    hit before the worker's next checkpoint: the job rested with its cancel in the cache for
    24 h only; resumed after a later reset (a weekly quota), it ran on as if never cancelled."""
    from django.core.cache import cache

    from ingest.cancellation import request_cancel
    from ingest.coordinator import Pipeline

    def cancelled_then_quota(pipeline, drafts):
        assert request_cancel(IngestJob.objects.get(pk=pipeline.job.pk)) == "requested"
        raise ClaudeQuotaError(RESET_AT, "You've hit your usage limit · resets 3pm (UTC)")  # as llm_pool raises it

    monkeypatch.setattr(Pipeline, "contextualise", cancelled_then_quota)
    job = start_ingest(tmp_path)

    assert job.status == IngestJob.Status.CANCELLED
    assert pending_schedule(job) is None and not job.events.filter(event="quota_pause").exists()
    assert job.events.order_by("-pk").first().data["cancelled"] is True  # the job page says « annulée »
    cache.clear()  # more than 24 h later: the cache flag is long gone
    llm.reset_quota()
    scheduler()
    job.refresh_from_db()
    assert job.status == IngestJob.Status.CANCELLED
    assert not Chunk.objects.filter(game=job.game).exists()


def test_a_job_paused_while_its_cancel_was_being_asked_is_cancelled_not_left_resting(tmp_path, llm, monkeypatch):
    """The worker paused the job (running → scheduled) between the two steps of the cancel
    (not waiting, then running): the cancel was answered « requested » and only a cache flag
    remembered it."""
    from ingest import cancellation

    job = start_ingest(tmp_path)  # paused on the quota
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJob.Status.RUNNING, pause_reason="")
    job.refresh_from_db()
    transition = IngestJob.transition

    def paused_meanwhile(self, to, **kwargs):
        moved = transition(self, to, **kwargs)
        if to == IngestJob.Status.CANCELLED and not moved:  # the worker pauses it right now
            IngestJob.objects.filter(pk=self.pk).update(status=IngestJob.Status.SCHEDULED, pause_reason="quota")
        return moved

    monkeypatch.setattr(IngestJob, "transition", paused_meanwhile)
    outcome = cancellation.request_cancel(job)

    job.refresh_from_db()
    assert (outcome, job.status) == ("cancelled", IngestJob.Status.CANCELLED)
