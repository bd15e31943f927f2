"""Questions never stay `pending` after the process answering them died.

A question is answered in a thread of the web process that received it; if that process is
killed, the row stays `pending`. `fail_stale_questions` marks a question pending for longer
than ASK_STALE_AFTER_S, that no live process vouches for, as failed, with a message the chat
shows. A process vouches (`vouch`, `answering`) for the questions its threads answer or
queue, and refreshes its vouchers on each sweep (`refresh_in_flight`).

`sweep` runs at the start of each web process and then every RECOVERY_SWEEP_INTERVAL_S, and
when a django-q2 cluster worker starts (registered in `questions/apps.py`).
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import gettext as _

log = logging.getLogger(__name__)

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
    bounded by the answer pool (ASK_MAX_CONCURRENT_ANSWERS)."""
    vouch(question_id)
    try:
        yield
    finally:
        forget(question_id)


def fail_stale_questions(now=None) -> int:
    """Mark questions pending for longer than ASK_STALE_AFTER_S, that no live process vouches
    for, as failed; returns how many."""
    from .models import Question

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


def sweep() -> dict[str, int]:
    """Refresh this process's vouchers and fail orphaned questions; never raises (it runs at
    start-up and in a background thread)."""
    try:
        refresh_in_flight()
        return {"questions_failed": fail_stale_questions()}
    except Exception:
        log.exception("question recovery sweep failed")
        return {}
