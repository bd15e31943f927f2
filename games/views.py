"""Pages of the games app: the home page (pick a game and its booklets) and the booklets' PDFs."""

import uuid
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import render
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
    games = Game.objects.prefetch_related("extensions").order_by("name")
    return render(request, "games/home.html", {"cards": [GameCard.of(game) for game in games]})


def booklet_owner(booklet_id: uuid.UUID) -> Game | Extension:
    """The Game (base booklet) or Extension with this id that has a stored PDF; else 404."""
    owner = Game.objects.filter(pk=booklet_id).first() or Extension.objects.filter(pk=booklet_id).first()
    if owner is None or not owner.pdf:
        raise Http404("No such booklet")
    return owner


@xframe_options_sameorigin  # the chat shows the viewer (and its PDF fallback) in an iframe
def booklet_pdf(request, booklet_id: uuid.UUID):
    if not may_read(request):
        return redirect_to_login(request.get_full_path())
    owner = booklet_owner(booklet_id)
    try:
        handle = owner.pdf.open("rb")
    except FileNotFoundError:
        raise Http404("The booklet's PDF is missing") from None
    return FileResponse(handle, content_type="application/pdf", filename=f"{owner.slug}.pdf")


@xframe_options_sameorigin
def booklet_viewer(request, booklet_id: uuid.UUID):
    if not may_read(request):
        return redirect_to_login(request.get_full_path())
    owner = booklet_owner(booklet_id)
    name = owner.name if isinstance(owner, Extension) else (owner.booklet_name or owner.name)
    return render(request, "games/viewer.html", {"booklet_id": booklet_id, "booklet_name": name})


def booklet_page_words(request, booklet_id: uuid.UUID, page: int):
    """tesseract's word boxes of an OCR'd page, for the viewer to highlight a quote the page's
    (missing) text layer cannot show; 404 when the page was not read by OCR."""
    if not may_read(request):
        raise Http404("No such booklet")  # fetched by the viewer's script: no login redirect
    owner = booklet_owner(booklet_id)
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
