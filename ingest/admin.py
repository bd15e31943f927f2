from django.contrib import admin, messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from . import held_uploads, services
from .forms import BookletUploadForm
from .models import IngestEvent, IngestJob
from .progress import ACTS


class IngestEventInline(admin.TabularInline):
    model = IngestEvent
    extra = 0
    can_delete = False
    fields = ("id", "event", "data", "created_at")
    readonly_fields = fields


@admin.register(IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = ("booklet", "game", "booklet_kind", "status", "pause_reason", "act", "progress_summary", "created_at")
    list_filter = ("status", "booklet_kind", "pause_reason")
    list_select_related = ("game", "extension__game")  # the booklet's name: its extension, which names its game
    search_fields = ("game__name", "extension__name", "error")
    readonly_fields = [f.name for f in IngestJob._meta.fields]
    inlines = [IngestEventInline]
    actions = ["retry_jobs", "cancel_jobs"]

    def add_view(self, request, form_url="", extra_context=None):
        """"Add" is the upload of a booklet: the job is created by the ingestion service."""
        form = BookletUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                job = self.start_ingest(request, form.cleaned_data)
            except services.BookletBusy as exc:  # the form comes back filled in, its PDF kept, nothing written
                form.keep_pdf()
                form.add_error(None, str(exc))
            else:
                held_uploads.release(form.cleaned_data.get("held"))
                self.message_user(request, _("Ingestion de « %(name)s » lancée.") % {"name": job.booklet_name}, messages.SUCCESS)
                return redirect(reverse("admin:ingest_ingestjob_change", args=[job.pk]))
        context = {**self.admin_site.each_context(request), "form": form, "opts": self.model._meta}
        return TemplateResponse(request, "ingest/admin_upload.html", context)

    def start_ingest(self, request, data):
        job = services.create_ingest(
            pdf_path_or_file=data["pdf"],
            game=data["game"],
            new_game_name=data["new_game_name"] or None,
            kind=data["kind"],
            name=data["name"] or None,
            language=data["language"],
            user=request.user,
            pdf_info=data.get("pdf_info"),
        )
        services.enqueue(job)
        return job

    @admin.display(description=_("livret"))
    def booklet(self, job: IngestJob) -> str:
        return job.booklet_name

    @admin.display(description=_("étape en cours"), ordering="current_act")
    def act(self, job: IngestJob) -> str:
        """The act's name (« Archivage »), not its code (« index »)."""
        return str(ACTS.get(job.current_act, job.current_act)) if job.current_act else "-"

    @admin.display(description=_("progression"))
    def progress_summary(self, job: IngestJob) -> str:
        act = job.progress.get(job.current_act, {}) if job.current_act else {}
        if not act:
            return "—"
        return f"{act.get('done', 0)}/{act.get('total', 0)}"

    @admin.action(description=_("Relancer les ingestions en erreur ou bloquées"))
    def retry_jobs(self, request, queryset):
        retried = 0
        for job in queryset.select_related("game", "extension"):
            try:
                services.relaunch(job)
            except services.CannotRelaunch as exc:
                self.message_user(request, _("« %(name)s » : %(reason)s") % {"name": job.booklet_name, "reason": exc}, messages.WARNING)
            else:
                retried += 1
        self.message_user(
            request,
            ngettext("%(n)d ingestion relancée.", "%(n)d ingestions relancées.", retried) % {"n": retried},
            messages.SUCCESS if retried else messages.WARNING,
        )

    @admin.action(description=_("Annuler les ingestions en file ou en cours"))
    def cancel_jobs(self, request, queryset):
        from .cancellation import request_cancel

        outcomes = [request_cancel(job) for job in queryset]
        stopped = sum(1 for outcome in outcomes if outcome)
        self.message_user(
            request,
            ngettext("%(n)d ingestion annulée ou en cours d'arrêt.", "%(n)d ingestions annulées ou en cours d'arrêt.", stopped) % {"n": stopped},
            messages.SUCCESS if stopped else messages.WARNING,
        )
