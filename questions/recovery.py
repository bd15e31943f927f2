"""Questions never stay `pending` after the process answering them died.

A question is answered in a thread of the web process that received it; if that process is
killed, the row stays `pending`. `fail_stale_questions` marks it as failed, with a message the
chat shows. A process vouches (`vouch`, `answering`) for the questions its threads answer or
queue — the in-flight mark of each question's `Answering` (ask_flow/answering.py), which
names the process — and refreshes its vouchers on each sweep (`refresh_in_flight`). A mark
whose process is known to have stopped (runtime/process_identity.py: the web process before
a restart) fails its question at the next sweep, the one a restarted process runs as it
starts; a question without any mark, once pending for longer than ASK_STALE_AFTER_S.

`sweep` runs at the start of each web process and then every RECOVERY_SWEEP_INTERVAL_S, and
when a django-q2 cluster worker starts (registered in `questions/apps.py`).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

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
    """Mark as failed the questions whose process is known to have stopped (its mark names a
    process of this machine that no longer runs: at once, whatever their age), and those
    pending for longer than ASK_STALE_AFTER_S that no process vouches for; returns how many."""
    from .models import Question

    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.ASK_STALE_AFTER_S)
    pending = Question.objects.filter(status=Question.Status.PENDING).order_by("created_at")
    rows = [(str(pk), created) for pk, created in pending.values_list("pk", "created_at")[:1000]]
    vouched = answers.vouchers(qid for qid, _ in rows)
    # vouched for by a process that may still run: alive; by one that stopped: orphaned now;
    # by none: orphaned once older than the cutoff (before that it may be on its way to a vouch)
    orphans = [qid for qid, created in rows if not vouched.get(qid, created >= cutoff)]
    count = Question.objects.filter(pk__in=orphans, status=Question.Status.PENDING).update(
        status=Question.Status.ERROR,
        # its msgid: the sweep runs in no reader's language, the page translates it (Question.error_message)
        error=gettext_noop("La réponse a été interrompue (le serveur a redémarré). Posez la question à nouveau."),
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
