"""Pages of the games app: the home page (pick a game and its booklets) and the booklets' PDFs."""

import uuid
from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import render, resolve_url
from django.views.decorators.clickjacking import xframe_options_sameorigin

from .changes import changes_of
from .models import Extension, Game, OcrPageWords


def may_read(request) -> bool:
    """Same rule as asking: signed-in users, or everyone when anonymous asking is open."""
    return request.user.is_authenticated or settings.ASK_ALLOW_ANONYMOUS


@dataclass(frozen=True)
class GameCard:
    """A game on the home page, with what BGG told us about it (any key may be missing)."""

    game: Game
    cover: str
    year: str
    min_players: str
    max_players: str
    playing_time: str

    @classmethod
    def of(cls, game: Game) -> "GameCard":
        meta = game.bgg_metadata or {}
        text = lambda *keys: next((str(meta[k]) for k in keys if meta.get(k)), "")  # noqa: E731
        return cls(
            game=game,
            cover=text("image", "thumbnail", "cover"),
            year=text("year", "yearpublished", "year_published"),
            min_players=text("minplayers", "min_players"),
            max_players=text("maxplayers", "max_players", "minplayers", "min_players"),
            playing_time=text("playingtime", "playing_time"),
        )


def home(request):
    if not (request.user.is_authenticated or settings.PUBLIC_CATALOGUE or settings.ASK_ALLOW_ANONYMOUS):
        return redirect_to_login(request.get_full_path())  # the games and booklet ids are not public
    # Only what can be asked: a game whose only ingestion failed, or is still running, would
    # offer « Poser une question » on no rules (staff find it in the admin and the ingestions).
    games = Game.objects.askable().with_askable_booklets().order_by("name")
    return render(request, "games/home.html", {"cards": [GameCard.of(game) for game in games]})


def booklet_owner(booklet_id: uuid.UUID, user) -> Game | Extension:
    """The Game (base booklet) or Extension with this id whose PDF is stored and, for anyone
    but staff, read (`page_sources.pdf_served`); else 404."""
    owner = Game.objects.filter(pk=booklet_id).first() or Extension.objects.filter(pk=booklet_id).first()
    if owner is None or not owner.pdf or not owner.pdf.storage.exists(owner.pdf.name):
        raise Http404("No such booklet, or its PDF is missing")
    booklet = owner.booklet if isinstance(owner, Extension) else owner.base_booklet
    if not user.is_staff and not booklet.chunks().exists():
        raise Http404("No such booklet, or not read yet")
    return owner


def framed(request) -> bool:
    """Whether the browser loads this page in a frame (the chat's viewer pane)."""
    return request.headers.get("Sec-Fetch-Dest") in ("iframe", "frame")


def unavailable(request, *, signed_out: bool):
    """No booklet to show. In the chat's viewer pane, a page it may frame that says why: the
    login page and the site's 404 may not be framed (DENY), and the pane would show the
    browser's « refused to connect ». Elsewhere, the login page or the 404."""
    if framed(request):
        login_url = f"{resolve_url(settings.LOGIN_URL)}?{urlencode({'next': request.get_full_path()})}"
        context = {"signed_out": signed_out, "login_url": login_url}
        return render(request, "games/viewer_unavailable.html", context, status=403 if signed_out else 404)
    if signed_out:
        return redirect_to_login(request.get_full_path())
    raise Http404("No such booklet, or its PDF is missing")


@xframe_options_sameorigin  # the chat shows the viewer (and its PDF fallback) in an iframe
def booklet_pdf(request, booklet_id: uuid.UUID):
    if not may_read(request):
        return unavailable(request, signed_out=True)
    try:
        owner = booklet_owner(booklet_id, request.user)
        handle = owner.pdf.open("rb")
    except (Http404, FileNotFoundError):
        return unavailable(request, signed_out=False)
    return FileResponse(handle, content_type="application/pdf", filename=f"{owner.slug}.pdf")


@xframe_options_sameorigin
def booklet_viewer(request, booklet_id: uuid.UUID):
    if not may_read(request):
        return unavailable(request, signed_out=True)
    try:
        owner = booklet_owner(booklet_id, request.user)
    except Http404:
        return unavailable(request, signed_out=False)
    name = owner.name if isinstance(owner, Extension) else (owner.booklet_name or owner.name)
    return render(request, "games/viewer.html", {"booklet_id": booklet_id, "booklet_name": name})


def booklet_page_words(request, booklet_id: uuid.UUID, page: int):
    """tesseract's word boxes of an OCR'd page, for the viewer to highlight a quote the page's
    (missing) text layer cannot show; 404 when the page was not read by OCR."""
    if not may_read(request):
        raise Http404("No such booklet")  # fetched by the viewer's script: no login redirect
    owner = booklet_owner(booklet_id, request.user)
    booklet = owner.booklet if isinstance(owner, Extension) else owner.base_booklet
    found = OcrPageWords.objects.of_booklet(booklet).filter(page=page).first()
    if found is None:
        raise Http404("No OCR words for this page")
    return JsonResponse({"page": page, "width": found.width, "height": found.height, "words": found.words})


def game_changes(request, slug: str):
    """What each expansion and FAQ of the game changes in its base rules (linked from the chat)."""
    if not may_read(request):
        return redirect_to_login(request.get_full_path())
    game = Game.objects.filter(slug=slug).first()
    if game is None:
        raise Http404("unknown game")
    return render(request, "games/changes.html", {"game": game, "booklets": changes_of(game)})
