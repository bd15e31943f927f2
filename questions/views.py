"""Pages of the questions app: the chat of one game and the server-side answer renderer."""

from uuid import UUID

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _

from games.models import Game

from .access import visible_question
from .booklets import booklets_of
from .confidence import confidence_of
from rag.limits import MAX_HISTORY_TURNS, MAX_QUESTION_CHARS
from .rendering import render_answer

ANY_QUESTION = UUID(int=0)


def may_ask(request) -> bool:
    return request.user.is_authenticated or settings.ASK_ALLOW_ANONYMOUS


def selected_extensions(request, game: Game):
    """The booklets to tick: those of the querystring (?ext=<id>…, only this game's; a bare
    `?ext=` is the base booklet alone), every booklet of the game without one. The chat then
    keeps the player's own choice (static/oracle/booklet_choice.js)."""
    extensions = list(game.extensions.all())
    if "ext" not in request.GET:
        return extensions
    wanted = request.GET.getlist("ext")
    return [ext for ext in extensions if str(ext.pk) in wanted]


def chat_strings() -> dict[str, str]:
    """The chat script's messages, translated here so the script holds no UI text."""
    return {
        "thinking": _("L'Oracle consulte les livrets…"),
        "offline": _("L'Oracle finalise hors-ligne…"),
        "offlineFailed": _("L'Oracle n'a pas pu terminer sa réponse. Réessayez dans un instant."),
        "streamFailed": _("La connexion à l'Oracle a échoué. Vérifiez votre réseau et réessayez."),
        "tooLong": _("La question dépasse %(max)s caractères.") % {"max": MAX_QUESTION_CHARS},
        "empty": _("Écrivez d'abord votre question."),
        "noCards": _("Aucune carte trouvée"),
        "you": _("Vous"),
        "oracle": _("L'Oracle"),
        "chunks": _("Passages retrouvés"),
        "timings": _("Durées (ms)"),
        "hyde": _("Passage hypothétique (HyDE)"),
        "bestScore": _("Meilleur score"),
        "page": _("p."),
        "historyTitle": _("Tours précédents renvoyés à l'Oracle avec la question"),
        "cardLoading": _("Chargement de la carte…"),
        "cardUnknown": _("Carte introuvable dans le catalogue du jeu."),
        "cardFrench": _("En français :"),
    }


def chat(request, slug: str):
    if not may_ask(request):
        return redirect_to_login(request.get_full_path())
    game = get_object_or_404(Game.objects.prefetch_related("extensions"), slug=slug)
    selected = selected_extensions(request, game)
    context = {
        "game": game,
        "extensions": list(game.extensions.all()),
        "selected": selected,
        "choice_from_url": "ext" in request.GET,
        "max_chars": MAX_QUESTION_CHARS,
        "max_history": MAX_HISTORY_TURNS,
        "chat_config": {
            "gameId": str(game.pk),
            "extensions": [str(ext.pk) for ext in selected],
            "choiceFromUrl": "ext" in request.GET,  # a link's choice wins over the saved one
            "askUrl": "/api/ask/stream",
            "pollUrl": "/api/ask/",
            "cardsUrl": f"/api/games/{game.pk}/cards",
            "cardUrl": reverse("api:oracle-game-card-lookup", args=[game.pk]),
            # the stored answer's HTML: the chat puts the question's id in place of this one
            "answerUrl": reverse("oracle-answer-fragment", args=[game.slug, ANY_QUESTION]),
            "anyQuestion": str(ANY_QUESTION),
            "maxChars": MAX_QUESTION_CHARS,
            "maxHistory": MAX_HISTORY_TURNS,
            "pollEveryMs": 3000,
            "pollMaxTries": 15,
            "strings": chat_strings(),
        },
    }
    return render(request, "questions/chat.html", context)


def answer_fragment(request, slug: str, question_id):
    """The stored answer of a question, as safe HTML with its confidence (the chat inserts it
    once the answer is done). Seen only by whoever may see the question."""
    if not may_ask(request):
        return redirect_to_login(request.get_full_path())
    user = request.user if request.user.is_authenticated else None
    question = visible_question(user, question_id, game__slug=slug)
    if not question.is_answered:
        return HttpResponse(status=202)  # still being answered: ask again later
    # bestScore rates rulebook passages; a decklist is judged by its verdict (diagnostics.deck)
    score = None if "deck" in question.diagnostics else question.best_score
    context = {
        "answer_html": render_answer(question.answer, booklets_of(question.game, question.game.extensions.all(), for_search=False)),
        "confidence": confidence_of(score, question.diagnostics.get("confidence")),
        "error": question.error,
    }
    return render(request, "questions/_answer.html", context)
