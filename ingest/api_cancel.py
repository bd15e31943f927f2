"""`POST /api/ingest/{job_id}/cancel`: stop a queued or running ingestion (staff, session, CSRF)."""

from uuid import UUID

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import Status
from ninja.security import django_auth_is_staff

from .cancellation import request_cancel
from .models import IngestJob

router = Router(tags=["ingest"])


class CancelOut(Schema):
    job_id: UUID
    outcome: str  # "cancelled" (it was queued) or "requested" (running: its worker stops within seconds)


class CancelConflict(Schema):
    detail: str


@router.post(
    "/ingest/{job_id}/cancel",
    response={202: CancelOut, 409: CancelConflict},
    auth=django_auth_is_staff,
    url_name="oracle-ingest-cancel",
)
def cancel_job(request, job_id: UUID):
    """Cancel a queued job at once, or ask a running job's worker to stop (it does between two
    pages or batches, within seconds; its caches are kept for « Relancer »). A scheduled job is
    cancelled with `DELETE /api/games/{id}/scheduled`; a finished one answers 409."""
    job = get_object_or_404(IngestJob, pk=job_id)
    outcome = request_cancel(job)
    if not outcome:
        return Status(409, {"detail": _("Cette ingestion n'est ni en file ni en cours (%(status)s).") % {"status": job.get_status_display()}})
    return Status(202, {"job_id": job.pk, "outcome": outcome})
