"""Booklets (mounted under /api/booklets): read one, its PDF and its page images; staff change
its language or name and delete it. A game's base booklet has the game's id; every other
booklet its Extension's (docs/api-resources.md)."""


from uuid import UUID

from django.http import FileResponse, Http404
from django.urls import reverse
from ninja import Router
from ninja.errors import HttpError, Throttled
from ninja.responses import Status

from rag.page_render import ensure_page_image
from runtime import components
from runtime.api_access import STAFF, is_staff
from runtime.api_errors import READ_ERRORS, STAFF_ERRORS, ErrorOut
from runtime.ratelimit import count_render

from . import services
from .models import Booklet, Game
from .page_sources import pdf_served
from .schemas import BookletOut, BookletPatch

router = Router(tags=["booklets"])

PDF = {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}
IMAGE = {media: {"schema": {"type": "string", "format": "binary"}} for media in ("image/png", "image/jpeg", "image/webp")}


def job_summary(job) -> dict | None:
    if job is None:
        return None
    return {
        "id": job.pk,
        "status": job.status,
        "created_at": job.created_at,
        "finished_at": job.finished_at,
        "error": job.error,
        "url": reverse("api:oracle-ingest-detail", args=[job.pk]),
    }


def booklets_out(game: Game, booklets: list[Booklet], *, staff: bool) -> list[dict]:
    """The booklets of one game as the API shows them, in the same few queries however many
    there are: their chunk counts and their last jobs are read for the whole game at once.
    The last job only for `staff`: a failed one's error names the server's folders, and the
    ingestions are staff's (a reader's `GET /api/ingest/{id}` is a 403)."""
    statuses = services.booklet_statuses(game)
    jobs = services.last_jobs(game) if staff else {}
    return [booklet_out(b, statuses.get(b.extension_id, services.NO_CHUNKS), jobs.get(b.extension_id)) for b in booklets]


def booklet_out(booklet: Booklet, status: services.BookletStatus, last_job) -> dict:
    owner = booklet.owner
    return {
        "id": owner.pk,
        "game_id": booklet.game.pk,
        "name": booklet.name,
        "slug": booklet.slug,
        "kind": booklet.kind,
        "language": booklet.language,
        "pages": owner.pdf_pages,
        "chunk_count": status.chunks,
        "index_state": status.index_state,
        "last_job": job_summary(last_job),
        "url": reverse("api:oracle-booklet-detail", args=[owner.pk]),
        "pdf_url": reverse("api:oracle-booklet-file", args=[owner.pk]) if owner.pdf else None,
        "updated_at": owner.updated_at,
    }


def one_booklet_out(booklet: Booklet, *, staff: bool) -> dict:
    return booklets_out(booklet.game, [booklet], staff=staff)[0]


def get_booklet(booklet_id: UUID) -> Booklet:
    booklet = services.find_booklet(booklet_id)
    if booklet is None:
        raise Http404
    return booklet


@router.get("/{booklet_id}", response={200: BookletOut, **READ_ERRORS}, url_name="oracle-booklet-detail")
def get_booklet_detail(request, booklet_id: UUID):
    """A booklet: kind, language, pages, chunks, index state (`empty`, `pending` until the
    index owner syncs, `indexed`) and its last ingestion job."""
    return one_booklet_out(get_booklet(booklet_id), staff=is_staff(request))


@router.patch("/{booklet_id}", response={200: BookletOut, **STAFF_ERRORS}, auth=STAFF, url_name="oracle-booklet-update")
def update_booklet(request, booklet_id: UUID, payload: BookletPatch):
    """Staff: change the booklet's language (its chunks are re-indexed with it and the game's
    French ↔ English terms learnt again) or its name (cited in answers)."""
    booklet = get_booklet(booklet_id)
    if payload.name is not None and payload.name != booklet.name:
        booklet = services.rename_booklet(booklet, payload.name.strip())
    if payload.language is not None and payload.language != booklet.language:
        booklet = services.set_booklet_language(booklet, payload.language)
    return one_booklet_out(booklet, staff=True)


@router.delete("/{booklet_id}", response={204: None, **STAFF_ERRORS, 409: ErrorOut}, auth=STAFF, url_name="oracle-booklet-delete")
def delete_booklet(request, booklet_id: UUID):
    """Staff: delete the booklet, its chunks (they leave retrieval at once), its PDFs, page
    images and ingestion caches. A base booklet leaves its game without rules. 409 while
    one of its ingestions runs (cancel it first)."""
    try:
        services.delete_booklet(get_booklet(booklet_id))
    except services.BookletBusy as exc:
        raise HttpError(409, str(exc)) from None
    return Status(204, None)


@router.get(
    "/{booklet_id}/pdf",
    response=READ_ERRORS,
    url_name="oracle-booklet-file",
    openapi_extra={"responses": {200: {"description": "The booklet's PDF.", "content": PDF}}},
)
def get_booklet_pdf(request, booklet_id: UUID):
    """The booklet's PDF (404 when none is stored, or for a reader, none read yet)."""
    path = pdf_served(get_booklet(booklet_id), staff=is_staff(request))
    if path is None:
        raise Http404
    return FileResponse(path.open("rb"), content_type="application/pdf", filename=path.name)


@router.get(
    "/{booklet_id}/pages/{page}",
    response={**READ_ERRORS, 429: ErrorOut},
    url_name="oracle-booklet-page",
    openapi_extra={"responses": {200: {"description": "The page as an image, rendered on first need.", "content": IMAGE}}},
)
def get_booklet_page(request, booklet_id: UUID, page: int):
    """One page of the booklet as an image (1 is the first page), rendered from its PDF the
    first time it is asked for. 404 for a page the PDF does not have; 429 past the render
    limits (`RATE_LIMIT_RENDER_USER`, `RATE_LIMIT_RENDER_IP`: only a render counts)."""
    booklet = get_booklet(booklet_id)
    if pdf_served(booklet, staff=is_staff(request)) is None or not 1 <= page <= (booklet.owner.pdf_pages or 0):
        raise Http404
    # a render (not a page already rendered) counts: 429 with Retry-After past RATE_LIMIT_RENDER_*
    image = ensure_page_image(booklet.images_dir, page, components.page_renderer(),
                              before_render=lambda: count_render(request, Throttled))  # fmt: skip
    if image is None:
        raise Http404
    return FileResponse(image.open("rb"), content_type=CONTENT_TYPES.get(image.suffix.lower(), "application/octet-stream"))


CONTENT_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp"}
