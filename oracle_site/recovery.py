"""Nothing stays in progress forever after a process dies.

- A question is answered in a thread of the web process that received it; if that process
  is killed, the row stays `pending`. `fail_stale_questions` marks a question pending for
  longer than ASK_STALE_AFTER_S as failed, with a message the chat shows.
- An ingest job runs in a django-q2 worker; while it runs, `job_heartbeat` refreshes a key
  in the shared cache. A `running` job without a fresh heartbeat lost its worker:
  `requeue_orphaned_jobs` puts it back in the queue, where it resumes from its caches (OCR,
  hierarchy, context, conflicts are cached per booklet by the stages). A job whose worker
  died INGEST_MAX_ATTEMPTS times (a PDF that kills the worker) fails instead.

`sweep` runs both; every web process calls it at start and then every
RECOVERY_SWEEP_INTERVAL_S (`start_sweeper`), each django-q2 cluster at start.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .periodic import start_periodic

log = logging.getLogger(__name__)



def heartbeat_key(job_id) -> str:
    return f"oracle-ingest-heartbeat:{job_id}"


def beat(job_id) -> None:
    cache.set(heartbeat_key(job_id), timezone.now().timestamp(), timeout=int(settings.INGEST_STALE_AFTER_S * 2) + 1)


def has_fresh_heartbeat(job_id, now: float) -> bool:
    last = cache.get(heartbeat_key(job_id))
    return last is not None and now - last < settings.INGEST_STALE_AFTER_S


@contextmanager
def job_heartbeat(job_id):
    """Refresh the job's heartbeat every INGEST_HEARTBEAT_S while the block runs."""
    stop = threading.Event()

    def loop():
        while not stop.wait(settings.INGEST_HEARTBEAT_S):
            try:
                beat(job_id)
            except Exception:  # a cache hiccup must not stop the ingestion
                log.warning("heartbeat of ingest %s failed", job_id, exc_info=True)

    beat(job_id)
    thread = threading.Thread(target=loop, name=f"heartbeat-{job_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)
        cache.delete(heartbeat_key(job_id))


_in_flight: set[str] = set()
_in_flight_lock = threading.Lock()


def in_flight_key(question_id) -> str:
    return f"oracle-ask-in-flight:{question_id}"


def _in_flight_ttl() -> int:
    return int(max(settings.RECOVERY_SWEEP_INTERVAL_S, 1) * 3) + 5


def refresh_in_flight() -> None:
    """The web process vouches for the questions its threads still answer (each sweep)."""
    with _in_flight_lock:
        alive = list(_in_flight)
    if alive:
        cache.set_many({in_flight_key(qid): True for qid in alive}, timeout=_in_flight_ttl())


def vouch(question_id) -> None:
    """From now on this process answers the question (queued ones too): the sweep of another
    process leaves it alone until `answering` ends (or `forget`)."""
    qid = str(question_id)
    with _in_flight_lock:
        _in_flight.add(qid)
    cache.set(in_flight_key(qid), True, timeout=_in_flight_ttl())


def forget(question_id) -> None:
    qid = str(question_id)
    with _in_flight_lock:
        _in_flight.discard(qid)
    cache.delete(in_flight_key(qid))


@contextmanager
def answering(question_id):
    """Around the answer of one question: marks it as alive. How many are answered at once is
    bounded by the answer pool (questions/pools.py, ASK_MAX_CONCURRENT_ANSWERS)."""
    vouch(question_id)
    try:
        yield
    finally:
        forget(question_id)


def fail_stale_questions(now=None) -> int:
    """Mark questions pending for longer than ASK_STALE_AFTER_S, that no live process vouches
    for, as failed; returns how many."""
    from questions.models import Question

    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.ASK_STALE_AFTER_S)
    stale = Question.objects.filter(status=Question.Status.PENDING, created_at__lt=cutoff)
    ids = [str(pk) for pk in stale.values_list("pk", flat=True)[:1000]]
    alive = cache.get_many([in_flight_key(qid) for qid in ids])
    orphans = [qid for qid in ids if in_flight_key(qid) not in alive]
    count = Question.objects.filter(pk__in=orphans, status=Question.Status.PENDING).update(
        status=Question.Status.ERROR,
        error=_("La réponse a été interrompue (le serveur a redémarré). Posez la question à nouveau."),
        answered_at=now,
    )
    if count:
        log.warning("%d question(s) left pending by a stopped process marked as failed", count)
    return count


def requeue_orphaned_jobs(now=None) -> dict[str, int]:
    """Requeue `running` jobs whose worker stopped beating; fail those that keep dying."""
    from ingest.models import IngestJob

    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.INGEST_STALE_AFTER_S)
    result = {"requeued": 0, "failed": 0}
    running = IngestJob.objects.filter(status=IngestJob.Status.RUNNING, updated_at__lt=cutoff)
    for job in running:
        if has_fresh_heartbeat(job.pk, now.timestamp()):
            continue
        result["failed" if _recover(job) == "failed" else "requeued"] += 1
    return result


def _recover(job) -> str:
    from ingest import services
    from ingest.models import IngestJob

    if job.attempts >= settings.INGEST_MAX_ATTEMPTS:
        message = _(
            "Le traitement de ce livret s'est arrêté brutalement %(n)d fois (PDF trop lourd ou piégé ?). "
            "Vérifiez le fichier puis relancez l'ingestion."
        ) % {"n": job.attempts}
        with transaction.atomic():  # status and final event seen together by the event streams
            if job.transition(IngestJob.Status.ERROR, allowed_from=(IngestJob.Status.RUNNING,), error=message, finished_at=timezone.now()):
                job.emit("error", {"message": message})
        return "failed"
    # The atomic transition makes the requeue happen once, whichever process sweeps first.
    if job.transition(IngestJob.Status.QUEUED, allowed_from=(IngestJob.Status.RUNNING,)):
        log.warning("ingest %s lost its worker during %s: queued again", job.pk, job.current_act)
        job.emit("warning", {"message": _("Le traitement a été interrompu ; il reprend là où il s'était arrêté.")})
        services.enqueue(job)
    return "requeued"


def sweep(**_signal_kwargs) -> dict[str, int]:
    """Both recoveries; never raises (it runs at start-up and in a background thread)."""
    try:
        refresh_in_flight()
        jobs = requeue_orphaned_jobs()
        return {"questions_failed": fail_stale_questions(), **jobs, **_stuck_queued_jobs()}
    except Exception:
        log.exception("recovery sweep failed")
        return {}


def _stuck_queued_jobs() -> dict[str, int]:
    from ingest.stuck_jobs import release_stuck_jobs  # queued jobs a dead cluster had claimed

    return release_stuck_jobs()


def start_sweeper() -> threading.Event | None:
    """Sweep now and then periodically, once per process (web processes)."""
    return start_periodic("recovery-sweep", sweep, settings.RECOVERY_SWEEP_INTERVAL_S)
