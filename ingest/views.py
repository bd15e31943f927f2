"""Admin pages of the ingest app: the upload wizard, one job's live progress, the jobs panel."""

import uuid

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.models import Extension, Game
from games.services import booklet_status

from . import language_choice
from .estimates import act_rates
from .models import IngestEvent, IngestJob
from .progress import ACTS
from .scheduling import MAX_SCHEDULE_AHEAD


@staff_member_required(login_url="oracle-login")
def ingest_new(request):
    now = timezone.now()
    latest = now + MAX_SCHEDULE_AHEAD  # added in UTC: 7 days to the minute, also across a DST change
    context = {
        "games": Game.objects.order_by("name"),
        "booklet_kinds": Extension.Kind.choices,
        # The start is typed in the site's time, whatever the browser's zone (the API reads a time
        # without a zone so).
        "min_start": timezone.localtime(now).strftime("%Y-%m-%dT%H:%M"),
        "max_start": timezone.localtime(latest).strftime("%Y-%m-%dT%H:%M"),
        "site_zone": timezone.get_current_timezone_name(),
        "preselected_game": request.GET.get("game", ""),
        "languages": language_choice.CHOICES,
    }
    return render(request, "ingest/new.html", context)


@staff_member_required(login_url="oracle-login")
def ingest_job(request, job_id: uuid.UUID):
    # The last event first, then the job: its status is then at least as recent as the events
    # up to that one, which the script replays without changing the status rendered here.
    last_event_id = IngestEvent.objects.filter(job_id=job_id).order_by("-pk").values_list("pk", flat=True).first()
    job = get_object_or_404(IngestJob.objects.select_related("game", "extension"), pk=job_id)
    booklet = job.booklet
    context = {
        "job": job,
        "last_event_id": last_event_id or 0,
        "start_time": start_time(job.scheduled_at),
        "acts": act_rows(job),
        # the acts' names in the reader's language for the script (stored events carry the worker's French)
        "act_labels": {act: str(label) for act, label in ACTS.items()},
        "rates": act_rates(),
        "pages": booklet.owner.pdf_pages or 0,
        "booklet_language": booklet.language,
        "language_names": {code: str(name) for code, name in language_choice.NAMES.items()},
        "language_event": language_choice.language_read(job),  # shown at once, as the acts are
    }
    return render(request, "ingest/job.html", context)



def start_time(when) -> str:
    """« 17:31 », with its day in the page's language when it is not today: « 17:31 (lundi
    7 décembre) » (a start may be up to 7 days ahead)."""
    if when is None:
        return ""
    local = timezone.localtime(when)
    return date_format(local, "H:i" if local.date() == timezone.localdate() else "H:i (l j F)")


def act_rows(job: IngestJob) -> list[dict]:
    """Each act as its stored progress leaves it, so a page opened on a finished job is right
    before its script replays the events: OCR's row is kept only where OCR ran. A job that
    failed or was cancelled shows the act it stopped in as stopped, and no act to come."""
    stopped = job.status in (IngestJob.Status.ERROR, IngestJob.Status.CANCELLED)
    rows = []
    for act, label in ACTS.items():
        progress = job.progress.get(act) or {}
        if not progress and (stopped or (act == "ocr" and job.is_finished)):
            continue  # did not run: OCR was not needed, or the job stopped before that act
        state = progress.get("state", "pending")
        rows.append({
            "act": act,
            "label": label,
            "state": "stopped" if stopped and state != "done" else state,
            "hidden": act == "ocr" and not progress,
            "counts": f"{progress['done']}/{progress['total']}" if progress.get("total") else "",
        })
    return rows


@staff_member_required(login_url="oracle-login")
@require_POST
def ingest_correct_language(request, job_id: uuid.UUID):
    """« Corriger la langue »: the booklet takes the language read in its text (and its chunks
    are re-indexed with it); back to the job page."""
    job = get_object_or_404(IngestJob.objects.select_related("game", "extension"), pk=job_id)
    try:
        code = language_choice.correct_language(job)
    except language_choice.UnknownLanguage as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, corrected_message(code, booklet_status(language_choice.fresh_booklet(job)).index_state))
    return redirect("oracle-ingest-job", job_id=job.pk)


def corrected_message(code: str, index_state: str) -> str:
    """Whether searches already find the booklet in its language, or will once the index syncs."""
    language = language_choice.language_name(code)
    if index_state == "indexed":
        return _("Langue du livret corrigée : %(language)s. Ses passages sont déjà réindexés dans cette langue.") % {"language": language}
    return _("Langue du livret corrigée : %(language)s. L'index se met à jour.") % {"language": language}


@staff_member_required(login_url="oracle-login")
def ingest_jobs(request):
    jobs = IngestJob.objects.select_related("game", "extension")
    scheduled = jobs.filter(status=IngestJob.Status.SCHEDULED).order_by("scheduled_at")
    context = {
        "scheduled": [(job, start_time(job.scheduled_at)) for job in scheduled],
        "recent": jobs.exclude(status=IngestJob.Status.SCHEDULED)[:20],
    }
    template = "ingest/jobs.html#jobs-panel" if request.htmx else "ingest/jobs.html"  # htmx refreshes the panel
    return render(request, template, context)
