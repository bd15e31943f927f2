"""Ingestion jobs and the progress events they emit (stored, so streams can be replayed)."""

import uuid
from pathlib import Path

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import BOOKLET_KIND_CHOICES
from runtime import broadcast

PREVIOUS_EVENT_KEY = "_previous_id"  # in a live event's data only; never stored nor streamed


class IngestJob(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Planifiée")
        QUEUED = "queued", _("En file")
        RUNNING = "running", _("En cours")
        DONE = "done", _("Terminée")
        ERROR = "error", _("Erreur")
        CANCELLED = "cancelled", _("Annulée")

    class PauseReason(models.TextChoices):
        NONE = "", _("Aucune")
        USER = "user", _("Planifiée par l'utilisateur")
        QUOTA = "quota", _("Quota LLM atteint")

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="ingest_jobs", verbose_name=_("jeu"))
    extension = models.ForeignKey(
        "games.Extension", on_delete=models.CASCADE, null=True, blank=True, related_name="ingest_jobs", verbose_name=_("livret")
    )
    booklet_kind = models.CharField(_("type de livret"), max_length=20, choices=BOOKLET_KIND_CHOICES, default="base")
    status = models.CharField(_("état"), max_length=12, choices=Status.choices, default=Status.QUEUED, db_index=True)
    pause_reason = models.CharField(_("raison de la pause"), max_length=8, choices=PauseReason.choices, blank=True, default="")
    scheduled_at = models.DateTimeField(_("prévue le"), null=True, blank=True)
    current_act = models.CharField(_("étape en cours"), max_length=40, blank=True)
    progress = models.JSONField(_("progression"), default=dict, blank=True)  # per act: {"done": n, "total": m, ...}
    stats = models.JSONField(_("statistiques"), default=dict, blank=True)  # timings, OCR decision, counts
    error = models.TextField(_("erreur"), blank=True)
    pdf_path = models.CharField(_("chemin du PDF"), max_length=500, blank=True)  # relative to MEDIA_ROOT
    # Pages of `pdf_path`: a replacement's file is not the booklet's until it is read (ingest.booklet_swap).
    pdf_pages = models.PositiveIntegerField(_("pages du PDF"), null=True, blank=True)
    # The upload created the game (a new game's name): cancelling it before it ran may delete
    # the game again; a game that existed before (cards, questions…) is never deleted.
    created_game = models.BooleanField(_("a créé le jeu"), default=False)
    attempts = models.PositiveSmallIntegerField(_("tentatives"), default=0)
    # A cancel asked of the running job, kept until it ends (ingest.cancellation): the cache flag
    # its checkpoints read expires, and a job that then rested on an LLM quota resumed uncancelled.
    cancel_requested = models.BooleanField(_("annulation demandée"), default=False)
    # The admin left the booklet's language to its text: the ingestion sets it (ingest.language_choice).
    detect_language = models.BooleanField(_("langue à détecter"), default=False)
    created_by = models.ForeignKey(
        "auth.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("lancée par")
    )
    created_at = models.DateTimeField(_("créée le"), auto_now_add=True)
    started_at = models.DateTimeField(_("démarrée le"), null=True, blank=True)
    finished_at = models.DateTimeField(_("terminée le"), null=True, blank=True)
    updated_at = models.DateTimeField(_("modifiée le"), auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("ingestion")
        verbose_name_plural = _("ingestions")

    def __str__(self) -> str:
        return f"{self.booklet_name} ({self.get_status_display()})"

    @property
    def booklet(self):
        return self.extension.booklet if self.extension_id else self.game.base_booklet

    @property
    def booklet_name(self) -> str:
        return self.booklet.name

    def stored_pdf(self) -> Path | None:
        """The uploaded PDF this job reads, if it is still stored."""
        path = Path(settings.MEDIA_ROOT) / self.pdf_path
        return path if self.pdf_path and path.is_file() else None

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.ERROR, self.Status.CANCELLED)

    def emit(self, event: str, data: dict | None = None) -> "IngestEvent":
        """Store a progress event, then publish it to the job's channel-layer group once it is
        committed: SSE relays send it live, and replay the stored rows by id."""
        row = IngestEvent.objects.create(job=self, event=event, data=data or {})
        # The job's event before this one travels along: a relay that did not send it knows
        # one was lost on the way and reads the stored ones (ingest.progress.Relay).
        previous = self.events.filter(pk__lt=row.pk).order_by("-pk").values_list("pk", flat=True).first() or 0
        live = {**row.data, PREVIOUS_EVENT_KEY: previous}
        group = broadcast.ingest_group(self.pk)
        transaction.on_commit(lambda: broadcast.publish(group, row.event, live, event_id=row.pk))
        return row

    def transition(self, to: str, *, allowed_from=None, where: dict | None = None, **fields) -> bool:
        """Atomically move to `to` if the job is still in one of `allowed_from` (and its row
        matches `where`).

        One UPDATE … WHERE status IN (…) so two workers never both win a transition.
        """
        qs = IngestJob.objects.filter(pk=self.pk, **(where or {}))
        if allowed_from:
            qs = qs.filter(status__in=list(allowed_from))
        fields.setdefault("updated_at", timezone.now())
        changed = qs.update(status=to, **fields) == 1
        if changed:
            self.status = to
            for name, value in fields.items():
                setattr(self, name, value)
        return changed

    def set_progress(self, act: str, **counts) -> None:
        with transaction.atomic():
            job = IngestJob.objects.select_for_update().get(pk=self.pk)
            progress = dict(job.progress)
            progress[act] = {**progress.get(act, {}), **counts}
            IngestJob.objects.filter(pk=self.pk).update(
                progress=progress, current_act=act, updated_at=timezone.now()
            )
        self.progress = progress
        self.current_act = act


class IngestEvent(models.Model):
    """One SSE event of a job; its id is the SSE `id:` used with Last-Event-ID."""

    job = models.ForeignKey(IngestJob, on_delete=models.CASCADE, related_name="events", verbose_name=_("ingestion"))
    event = models.CharField(_("événement"), max_length=40)
    data = models.JSONField(_("données"), default=dict, blank=True)
    created_at = models.DateTimeField(_("émis le"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("événement d'ingestion")
        verbose_name_plural = _("événements d'ingestion")

    def __str__(self) -> str:
        return f"{self.event} #{self.pk}"
