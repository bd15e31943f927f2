"""Starting an ingestion: check the PDF, create the game/booklet rows, store the file,
queue the job. The API, the admin, the `ingest` command and the demo loader call these."""

from __future__ import annotations

import io
import logging
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from games.models import BOOKLET_KINDS, Extension, Game
from games.services import unique_slug

from . import booklet_swap, language_choice, pdf_guard
from .cancellation import withdraw_cancel
from .models import IngestJob
from .queue import enqueue
from .recovery import requeue
from .stages.save_pdf import media_relative, store_pdf

log = logging.getLogger(__name__)

PDF_MAGIC = b"%PDF-"


class InvalidPdf(ValueError):
    """The upload cannot be ingested; `status` is the HTTP answer (400, 413)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class UnknownGame(LookupError):
    pass


class BookletBusy(Exception):
    """The booklet already has an ingestion waiting or running (the API answers 409): a second
    job would read it at the same time and the two would replace each other's rules."""


# A job in one of these states will still read its booklet: another upload of it waits for its end.
BUSY_STATES = (IngestJob.Status.SCHEDULED, IngestJob.Status.QUEUED, IngestJob.Status.RUNNING)


@dataclass(frozen=True)
class PdfInfo:
    pages: int
    size: int


def validate_pdf(source) -> PdfInfo:
    """Check an upload by its bytes (bytes, a path or a file object); raise InvalidPdf.

    The file is read where it lies (an upload larger than FILE_UPLOAD_MAX_MEMORY_SIZE is
    already a temporary file): a 60 MB PDF once cost the web process 60 MB per copy of it.
    Its pages are counted, and a hostile PDF refused, by ingest.pdf_guard's capped child."""
    with _opened(source) as (pdf, size, path):
        if not size:
            raise InvalidPdf(_("Le fichier est vide."))
        if size > settings.UPLOAD_MAX_BYTES:
            raise InvalidPdf(
                _("Le fichier dépasse la taille maximale de %(max)d Mo.") % {"max": settings.UPLOAD_MAX_BYTES // (1024 * 1024)},
                status=413,
            )
        if PDF_MAGIC not in pdf.read(1024):
            raise InvalidPdf(_("Ce fichier n'est pas un PDF (son contenu ne commence pas par %PDF)."))
        pdf.seek(0)
        pages = _count_pages(pdf, path)
    if pages == 0:
        raise InvalidPdf(_("Ce PDF ne contient aucune page."))
    if pages > settings.UPLOAD_MAX_PAGES:
        raise InvalidPdf(
            _("Ce PDF a %(pages)d pages ; le maximum est %(max)d.") % {"pages": pages, "max": settings.UPLOAD_MAX_PAGES},
            status=413,
        )
    return PdfInfo(pages=pages, size=size)


@contextmanager
def _opened(source):
    """(a binary file positioned at 0, its size, its path or None) for bytes, a path or an
    uploaded file."""
    if isinstance(source, (bytes, bytearray)):
        yield io.BytesIO(source), len(source), None
        return
    path = Path(source) if isinstance(source, (str, Path)) else None
    if path is None and hasattr(source, "temporary_file_path"):
        path = Path(source.temporary_file_path())
    if path is not None:
        with path.open("rb") as pdf:
            yield pdf, path.stat().st_size, path
        return
    size = getattr(source, "size", None)
    if size is not None and size > settings.UPLOAD_MAX_BYTES:
        raise InvalidPdf(_("Le fichier dépasse la taille maximale autorisée."), status=413)
    source.seek(0)
    if size is None:
        size = source.seek(0, io.SEEK_END)
        source.seek(0)
    try:
        yield source, size, None
    finally:
        source.seek(0)


def _count_pages(pdf, path: Path | None) -> int:
    """Counted in the guard's child, capped in memory and time: pdfminer inflates a PDF's
    cross-reference and object streams whole, and a 1 kB upload (double Flate over 400 MB
    of zeros) once held the web process at 1 GB before it answered 202."""
    if path is None:  # a small upload held in memory: the child reads a file
        with tempfile.NamedTemporaryFile(suffix=".pdf", dir=settings.FILE_UPLOAD_TEMP_DIR) as copy:
            shutil.copyfileobj(pdf, copy)
            copy.flush()
            return _count_pages(copy, Path(copy.name))
    try:
        return pdf_guard.check_pdf(path, pdf_guard.limits_from_settings())
    except pdf_guard.HostilePdf as exc:
        raise InvalidPdf(_refusal(exc.args[0])) from exc


def _refusal(problem: str) -> str:
    """The upload's 400 for the guard's problem, in the request's language."""
    msgid, params = getattr(problem, "msgid", None), getattr(problem, "params", {})
    if msgid == pdf_guard.ENCRYPTED:
        return _("Ce PDF est chiffré ou protégé par un mot de passe : exportez-en une copie sans protection.")
    if msgid in (pdf_guard.UNREADABLE, pdf_guard.PAGES_UNREADABLE):
        # any parser error (AttributeError for a page tree made of names, IndexError…) is
        # the uploader's bad file
        return _("Ce PDF est illisible (fichier abîmé ?) : %(error)s") % params
    reason = (_(msgid) % params if params else _(msgid)) if msgid else problem
    return _("Ce PDF ne peut pas être lu sans risque : %(error)s. Corrigez-le ou exportez-le à nouveau, puis téléversez-le.") % {"error": reason}


def create_ingest(
    *,
    pdf_path_or_file,
    game: Game | str | None = None,
    new_game_name: str | None = None,
    kind: str = "base",
    name: str | None = None,
    language: str = language_choice.DETECT,
    bgg_id: int | None = None,
    user=None,
    pdf_info: PdfInfo | None = None,
) -> IngestJob:
    """Validate the PDF (`pdf_info`: a form's check of it, the guard's child runs once), create the
    game and booklet rows, store the PDF as `<slug>-<timestamp>.pdf` and return a queued job (not
    yet enqueued). `language`: `language_choice.requested_language` of the admin's; DETECT (the
    default) lets the ingestion set it from the text."""
    if kind not in BOOKLET_KINDS:
        raise ValueError(f"unknown booklet kind {kind!r}")
    info = pdf_info or validate_pdf(pdf_path_or_file)
    chosen = language_choice.job_fields(language)  # a chosen language: the booklet's once its text is read
    language = language or language_choice.PROVISIONAL
    with transaction.atomic():
        game, created_game = _resolve_game(game, new_game_name, language, bgg_id)
        owner = game if kind == "base" else _extension(game, kind, name or new_game_name or kind, language)
        refuse_if_busy(game, owner if kind != "base" else None)  # before anything is stored
        if kind == "base" and name:
            owner.booklet_name = name
        owner.save()  # before the PDF is written: a row the database refuses leaves no file behind
        stored = media_relative(store_pdf(pdf_path_or_file, owner.slug))
        if not _serves_a_pdf(owner):  # a replacement waits beside the old PDF (ingest.booklet_swap)
            owner.pdf.name, owner.pdf_pages = stored, info.pages
            type(owner).objects.filter(pk=owner.pk).update(pdf=stored, pdf_pages=info.pages)
        return IngestJob.objects.create(
            game=game,
            extension=owner if kind != "base" else None, booklet_kind=kind,
            pdf_path=stored, pdf_pages=info.pages,
            created_game=created_game,  # cancelled before it ran, it may take the game with it
            **chosen,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )


def refuse_if_busy(game: Game, extension: Extension | None, besides: IngestJob | None = None) -> None:
    """Raise BookletBusy when the booklet has a scheduled, queued or running job (other than
    `besides`, the one being relaunched). The game's row is locked first (PostgreSQL), so two
    uploads or relaunches of one booklet at once are told apart."""
    Game.objects.select_for_update().filter(pk=game.pk).first()
    busy = IngestJob.objects.filter(game=game, extension=extension, status__in=BUSY_STATES)
    if besides is not None:
        busy = busy.exclude(pk=besides.pk)
    if busy.exists():
        raise BookletBusy(_(
            "Une ingestion de ce livret est déjà planifiée, en file ou en cours : attendez qu'elle se termine, "
            "ou annulez-la, avant d'en téléverser une nouvelle version."
        ) if besides is None else _(
            "Une autre ingestion de ce livret est planifiée, en file ou en cours : attendez qu'elle se termine, "
            "ou annulez-la, avant de relancer celle-ci."
        ))


def _serves_a_pdf(owner) -> bool:
    return bool(owner.pdf.name) and (Path(settings.MEDIA_ROOT) / owner.pdf.name).is_file()


def retry(job: IngestJob) -> bool:
    """Queue a failed (or cancelled) job again; its stored PDF and caches are reused. Raises
    BookletBusy when another job of its booklet will still read it (a newer upload)."""
    ended = (IngestJob.Status.ERROR, IngestJob.Status.CANCELLED)
    with transaction.atomic():
        if job.status in ended:  # (a queued one is not retried: ingest.recovery may release it)
            refuse_if_busy(job.game, job.extension, besides=job)
        moved = job.transition(IngestJob.Status.QUEUED, allowed_from=ended, error="", finished_at=None)
    if moved:
        withdraw_cancel(job)  # one asked of the run that ended does not stop this one
        job.emit("retry", {})
        enqueue(job)
    return moved


class CannotRelaunch(Exception):
    """Why « Relancer » cannot help a job, in a sentence (the API's 409, the admin's warning)."""


def relaunch(job: IngestJob) -> None:
    """« Relancer »: a failed or cancelled job is queued again; a queued job whose cluster died
    with its task is released (ingest.recovery). Raises CannotRelaunch for any other job,
    and for one whose PDF is no longer stored: it could only fail again."""
    if job.status not in RELAUNCHABLE:
        raise CannotRelaunch(not_relaunchable_message(job))
    if job.stored_pdf() is None:
        raise CannotRelaunch(_("Le PDF de cette ingestion n'est plus enregistré : téléversez à nouveau le livret pour le relire."))
    if superseded(job):
        raise CannotRelaunch(_("Une ingestion plus récente de ce livret a abouti : la relancer remettrait l'ancien PDF."))
    try:
        if retry(job) or (job.status == IngestJob.Status.QUEUED and requeue(job)):
            return
    except BookletBusy as exc:
        raise CannotRelaunch(str(exc)) from exc
    job.refresh_from_db(fields=["status"])
    raise CannotRelaunch(not_relaunchable_message(job))


RELAUNCHABLE = (IngestJob.Status.ERROR, IngestJob.Status.CANCELLED, IngestJob.Status.QUEUED)


def superseded(job: IngestJob) -> bool:
    """The job reads another file than the booklet serves, and the served file was uploaded
    after this job: re-reading this older file would swap the booklet back to it. (A job of
    the file the booklet serves may always be read again.) A later re-ingestion of an older
    served file does not count: it once refused the newest upload as « older »."""
    booklet = job.booklet
    if not booklet_swap.is_replacement(job, booklet):
        return False
    jobs = IngestJob.objects.filter(game_id=job.game_id, extension_id=job.extension_id)
    served_since = jobs.filter(pdf_path=booklet.pdf.name).order_by("created_at").values_list("created_at", flat=True).first()
    if served_since is None:  # no job left for the served file: any later success replaced it
        return jobs.filter(created_at__gt=job.created_at, status=IngestJob.Status.DONE).exists()
    return served_since > job.created_at


def not_relaunchable_message(job: IngestJob) -> str:
    if job.status == IngestJob.Status.QUEUED and settings.REDIS_URL:  # its task may be waiting its turn
        return _(
            "Cette ingestion attend son tour dans la file depuis moins de %(minutes)d minutes. Si elle n'a toujours pas "
            "démarré passé ce délai (INGEST_QUEUED_LOST_AFTER_S), « Relancer » la remet en file."
        ) % {"minutes": max(1, round(settings.INGEST_QUEUED_LOST_AFTER_S / 60))}
    return _("Seule une ingestion en erreur, annulée ou bloquée en file peut être relancée (%(status)s).") % {"status": job.get_status_display()}


def reingest(booklet, user=None) -> IngestJob:
    """Read a booklet again from its stored PDF (after a pipeline or embedder change)."""
    job = IngestJob.objects.create(
        game=booklet.game,
        extension=booklet.extension,
        booklet_kind=booklet.kind,
        pdf_path=booklet.pdf.name,
        pdf_pages=booklet.owner.pdf_pages,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    enqueue(job)
    return job


def _resolve_game(game, new_game_name, language, bgg_id) -> tuple[Game, bool]:
    """The game, and whether it was created here (from `new_game_name`)."""
    if isinstance(game, Game):
        return game, False
    if game:
        found = Game.objects.filter(pk=game).first() if _is_uuid(game) else Game.objects.filter(slug=game).first()
        if found is None:
            raise UnknownGame(_("Jeu inconnu : %(game)s") % {"game": game})
        return found, False
    if not new_game_name:
        raise UnknownGame(_("Choisissez un jeu existant ou donnez le nom du nouveau jeu."))
    return Game.objects.create(name=new_game_name, slug=unique_slug(new_game_name), language=language, bgg_id=bgg_id), True


def _extension(game: Game, kind: str, name: str, language: str) -> Extension:
    """The booklet named `name` of this game: re-uploading it replaces its rules."""
    # The game's row locked before the look-up (PostgreSQL): two first uploads of an expansion
    # at once both created it, and the second failed on its slug (a 500) instead of the 409 of
    # `refuse_if_busy`.
    Game.objects.select_for_update().filter(pk=game.pk).first()
    existing = game.extensions.filter(name__iexact=name, kind=kind).first()
    if existing:
        return existing
    return Extension.objects.create(
        game=game, name=name, kind=kind, language=language, slug=unique_slug(f"{game.slug}-{name}")
    )


def _is_uuid(value) -> bool:
    import uuid

    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True
