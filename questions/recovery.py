"""Questions never stay `pending` after the process answering them died.

A question is answered in a thread of the web process that received it; if that process is
killed, the row stays `pending`. `fail_stale_questions` marks a question pending for longer
than ASK_STALE_AFTER_S, that no live process vouches for, as failed, with a message the chat
shows. A process vouches (`vouch`, `answering`) for the questions its threads answer or
queue — the in-flight mark of each question's `Answering` (ask_flow/answering.py) — and
refreshes its vouchers on each sweep (`refresh_in_flight`).

`sweep` runs at the start of each web process and then every RECOVERY_SWEEP_INTERVAL_S, and
when a django-q2 cluster worker starts (registered in `questions/apps.py`).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from .ask_flow import answering as answers

log = logging.getLogger(__name__)


def refresh_in_flight() -> None:
    """The web process vouches for the questions its threads still answer (each sweep)."""
    answers.refresh_vouchers()


def vouch(question_id) -> None:
    """From now on this process answers the question (queued ones too): the sweep of another
    process leaves it alone until `answering` ends (or `forget`)."""
    answers.vouch(question_id)


def forget(question_id) -> None:
    answers.release(question_id)


@contextmanager
def answering(question_id):
    """Around the answer of one question: marks it as alive. How many are answered at once is
    bounded by the answer pool (ASK_MAX_CONCURRENT_ANSWERS)."""
    answers.vouch(question_id)
    try:
        yield
    finally:
        answers.release(question_id)


def fail_stale_questions(now=None) -> int:
    """Mark questions pending for longer than ASK_STALE_AFTER_S, that no live process vouches
    for, as failed; returns how many."""
    from .models import Question

    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.ASK_STALE_AFTER_S)
    stale = Question.objects.filter(status=Question.Status.PENDING, created_at__lt=cutoff)
    ids = [str(pk) for pk in stale.values_list("pk", flat=True)[:1000]]
    alive = answers.vouched_anywhere(ids)
    orphans = [qid for qid in ids if qid not in alive]
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
