"""Admin pages of the ingest app: the upload wizard, one job's live progress, the jobs panel."""

import uuid

from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from games.models import Extension, Game

from .events import ACTS
from .models import IngestJob
from .scheduling import MAX_SCHEDULE_AHEAD


@staff_member_required(login_url="oracle-login")
def ingest_new(request):
    now = timezone.localtime()
    context = {
        "games": Game.objects.order_by("name"),
        "booklet_kinds": Extension.Kind.choices,
        "min_start": now.strftime("%Y-%m-%dT%H:%M"),
        "max_start": (now + MAX_SCHEDULE_AHEAD).strftime("%Y-%m-%dT%H:%M"),
        "preselected_game": request.GET.get("game", ""),
    }
    return render(request, "ingest/new.html", context)


@staff_member_required(login_url="oracle-login")
def ingest_job(request, job_id: uuid.UUID):
    job = get_object_or_404(IngestJob.objects.select_related("game", "extension"), pk=job_id)
    # the acts' names in the reader's language (the stored events carry the worker's French)
    act_labels = {act: str(label) for act, label in ACTS.items()}
    return render(request, "ingest/job.html", {"job": job, "act_labels": act_labels})


@staff_member_required(login_url="oracle-login")
def ingest_jobs(request):
    jobs = IngestJob.objects.select_related("game", "extension")
    context = {
        "scheduled": jobs.filter(status=IngestJob.Status.SCHEDULED).order_by("scheduled_at"),
        "recent": jobs.exclude(status=IngestJob.Status.SCHEDULED)[:20],
    }
    template = "ingest/jobs.html#jobs-panel" if request.htmx else "ingest/jobs.html"  # htmx refreshes the panel
    return render(request, template, context)
