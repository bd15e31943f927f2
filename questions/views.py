"""Pages of the questions app: the chat of one game (a conversation: its turns rendered by the
server, new turns through htmx, answers streamed over the htmx SSE extension), its actions
(stop, regenerate, feedback, booklets) and the stored answer's fragment."""

from __future__ import annotations

import functools
import json
import logging
from uuid import UUID

from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_htmx.http import push_url

from games import suggestions
from games.models import Game
from rag.limits import MAX_HISTORY_TURNS, MAX_QUESTION_CHARS

from runtime.api_errors import refusals_as_pages
from runtime.refusals import Invalid, SignInRequired

from . import services
from .access import visible_question
from .ask_flow.background import start_answering
from .chat_turns import POLL_EVERY_S, POLL_MAX_TRIES, answer_context, turn_context
from .conversations import chosen_extensions, current_turns, history_for, remember_started, visible_conversation
from .models import Conversation
from .services import (
    UNCHANGED, Asker, ask_question, check_may_ask, game_booklets, own_conversation, rate_answer,
    regenerate_answer, set_booklets, stop_answer,
)  # fmt: skip

MAX_MENTIONS = 50
MAX_CARD_NAME = 200
LISTED_CONVERSATIONS = 30

log = logging.getLogger(__name__)


def may_ask(request) -> bool:
    return services.may_ask(request.user)


def asker(request):
    return Asker.of(request).user


def selected_extensions(request, game: Game):
    """The booklets to tick on a fresh page: those of the querystring (?ext=<id>…, only this
    game's; a bare `?ext=` is the base booklet alone), every booklet of the game without one."""
    extensions = list(game.extensions.all())
    if "ext" not in request.GET:
        return extensions
    wanted = request.GET.getlist("ext")
    return [ext for ext in extensions if str(ext.pk) in wanted]


def gave_up_message() -> str:
    """The polling fallback gave up: the server at the last try, the page when no try got through."""
    return _("L'Oracle n'a pas pu terminer sa réponse. Réessayez dans un instant.")


def chat_strings() -> dict[str, str]:
    """The chat script's messages, translated here so the script holds no UI text."""
    return {
        "offline": _("L'Oracle finalise hors-ligne…"),
        "tooLong": _("La question dépasse %(max)s caractères.") % {"max": MAX_QUESTION_CHARS},
        "failed": _("La connexion à l'Oracle a échoué. Vérifiez votre réseau et réessayez."),
        "gaveUp": gave_up_message(),
        "noCards": _("Aucune carte trouvée"),
        "copied": _("Copié !"),
        "cardLoading": _("Chargement de la carte…"),
        "cardUnknown": _("Carte introuvable dans le catalogue du jeu."),
        "cardFrench": _("En français :"),
    }


def history_note(count: int) -> str:
    """« ↺ n/5 » in words: how many earlier exchanges go back to the Oracle with the question."""
    if not count:
        return ""
    if count == 1:
        return _("↺ 1/%(max)s : l'Oracle relit le dernier échange") % {"max": MAX_HISTORY_TURNS}
    return _("↺ %(n)s/%(max)s : l'Oracle relit vos %(n)s derniers échanges") % {"n": count, "max": MAX_HISTORY_TURNS}


def own_conversations(request, game: Game):
    """The player's own conversations about this game, newest first (none when anonymous)."""
    user = asker(request)
    if user is None:
        return Conversation.objects.none()
    return Conversation.objects.filter(user=user, game=game).order_by("-updated_at")


def player_conversations(request, game: Game) -> dict:
    """The chat's « Vos conversations »: the LISTED_CONVERSATIONS newest, and how many there
    are (the others are on the conversations page)."""
    rows = own_conversations(request, game)
    listed = list(rows[:LISTED_CONVERSATIONS])
    total = len(listed) if len(listed) < LISTED_CONVERSATIONS else rows.count()
    return {"conversations": listed, "conversations_total": total}


def conversation_list(request, slug: str):
    """Every conversation of the player about the game, LISTED_CONVERSATIONS a page."""
    if not may_ask(request):
        return redirect_to_login(request.get_full_path())
    game = get_object_or_404(Game, slug=slug)
    page = Paginator(own_conversations(request, game), LISTED_CONVERSATIONS).get_page(request.GET.get("page"))
    return render(request, "questions/conversations.html", {"game": game, "page": page})


def page_suggestions(game: Game) -> tuple[list[str], str]:
    """Suggested questions and the box's example, from the game's own headings
    (games/suggestions.py)."""
    try:
        return suggestions.suggested_questions(game, limit=3), suggestions.question_placeholder(game)
    except Exception:  # suggestions are a nicety: the chat works without them
        log.exception("suggestions for %s failed", game.slug)
        return [], _("Posez votre question sur les règles…")


def chat(request, slug: str, conversation_id=None):
    if not may_ask(request):
        return redirect_to_login(request.get_full_path())
    game = get_object_or_404(Game.objects.askable().with_askable_booklets(), slug=slug)  # as on the home page
    conversation = None
    turns = []
    if conversation_id is not None:
        conversation = visible_conversation(asker(request), conversation_id, own=True, session=request.session)
        if conversation.game_id != game.pk:
            raise Http404  # another game's conversation
        selected = chosen_extensions(conversation)
        turns = [turn_context(q) for q in current_turns(conversation).select_related("game").prefetch_related("game__extensions")]
    else:
        selected = selected_extensions(request, game)
    suggestions, placeholder = page_suggestions(game)
    context = {
        "game": game,
        "conversation": conversation,
        "turns": turns,
        **player_conversations(request, game),
        "extensions": list(game.extensions.all()),
        "selected": selected,
        "max_chars": MAX_QUESTION_CHARS,
        "history_note": history_note(len(history_for(conversation))) if conversation else "",
        "suggestions": suggestions,
        "placeholder": placeholder,
        "chat_config": {
            "gameId": str(game.pk),
            "cardsUrl": f"/api/games/{game.pk}/cards",
            "cardUrl": reverse("api:oracle-game-card-lookup", args=[game.pk]),
            "maxChars": MAX_QUESTION_CHARS,
            "pollEveryS": POLL_EVERY_S,
            "pollMaxTries": POLL_MAX_TRIES,
            "strings": chat_strings(),
        },
    }
    return render(request, "questions/chat.html", context)


def chat_refusals(view):
    """`refusals_as_pages` for the chat's actions, a player signed out meanwhile (in another
    tab, or the session expired) told so in words with a link to sign in again, back to the
    page they are on (htmx's HX-Current-URL: the conversation once its URL was pushed)."""

    @functools.wraps(view)
    def signed_out_as_link(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except SignInRequired:
            back = request.htmx.current_url_abs_path or reverse("oracle-chat", args=[kwargs["slug"]])
            login_url = redirect_to_login(back).url
            return render(request, "questions/_signed_out.html", {"login_url": login_url}, status=403)

    return refusals_as_pages(signed_out_as_link)


def _card_mentions(raw: str) -> list[str]:
    try:
        names = json.loads(raw or "[]")
    except (ValueError, RecursionError):  # RecursionError: thousands of nested `[`
        names = None
    if (not isinstance(names, list) or len(names) > MAX_MENTIONS
            or not all(isinstance(n, str) and 0 < len(n) <= MAX_CARD_NAME and _storable(n) for n in names)):
        raise Invalid("card_mentions", _("Cartes citées illisibles."))
    return names


def _storable(name: str) -> bool:
    """No NUL and no lone surrogate (« \\ud800 » in the JSON): PostgreSQL refuses both (a 500)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in name


def _ticked(request, game: Game) -> list | None:
    """The ids of the booklets ticked in the form: None when every booklet the page offered is
    (present and future ones then), else the list (maybe empty: the base rules alone). `game`
    comes `with_askable_booklets`: a booklet with no rules yet was not offered."""
    extensions = list(game.extensions.all())
    wanted = set(request.POST.getlist("booklet"))
    ticked = [ext.pk for ext in extensions if str(ext.pk) in wanted]
    return None if len(ticked) == len(extensions) else ticked


def _conversation_id(raw: str) -> UUID | None:
    try:
        return UUID(raw) if raw else None
    except ValueError:
        raise Invalid("conversation", _("Conversation inconnue.")) from None


@require_POST
@chat_refusals
def ask(request, slug: str):
    """A question asked in the chat: stored in the current conversation (started on the first
    question), answered in the background; returns its turn, which listens to the answer's
    events, and pushes the conversation's URL (the first question's: it started it)."""
    check_may_ask(Asker.of(request))
    game = get_object_or_404(Game.objects.with_askable_booklets().with_askable_flag(), slug=slug)  # the booklets the page offered
    conversation_id = _conversation_id(request.POST.get("conversation", ""))
    asked = ask_question(
        Asker.of(request), game=game, text=request.POST.get("question", ""), conversation_id=conversation_id,
        extensions=_ticked(request, game), card_mentions=_card_mentions(request.POST.get("card_mentions", "")),
        rebook=True,
    )  # fmt: skip
    question, conversation = asked.question, asked.conversation
    if conversation_id is None and conversation.user_id is None:  # theirs if they sign in here
        remember_started(request.session, conversation)
    start_answering(question.pk)
    context = {
        **turn_context(question),
        "game": game,
        "conversation": conversation,
        **player_conversations(request, game),
        "history_note": history_note(min(len(question.history) + 1, MAX_HISTORY_TURNS)),  # this turn too, once answered
        "extensions": list(game.extensions.all()),
        "selected": asked.extensions,
        "oob": True,
    }
    response = render(request, "questions/_asked.html", context)
    if conversation_id is not None:
        return response  # its URL is the page's already: one history entry per conversation
    return push_url(response, reverse("oracle-chat-conversation", args=[game.slug, conversation.pk]))


@require_POST
@chat_refusals
def regenerate(request, slug: str, question_id):
    """Ask one's own turn again: a new Question replacing it, with the history before it; the
    regeneration already under way when the turn's answer is still being written."""
    asked = regenerate_answer(Asker.of(request), question_id, game__slug=slug)
    if asked.fresh:
        start_answering(asked.question.pk)
    return render(request, "questions/_turn.html", turn_context(asked.question))


@require_POST
@chat_refusals
def stop(request, slug: str, question_id):
    """« Arrêter »: the answer stops at the next token; its partial text is kept, marked."""
    stop_answer(Asker.of(request), question_id, game__slug=slug)
    return HttpResponse(status=204)


@require_POST
@chat_refusals
def feedback(request, slug: str, question_id):
    """👍 / 👎 and an optional comment on one's own answer."""
    raw, comment = request.POST.get("rating", ""), request.POST.get("comment")
    try:
        rating = int(raw) if raw else UNCHANGED
    except ValueError:
        raise Invalid("rating", _("La note est 1, -1 ou vide.")) from None
    question = rate_answer(Asker.of(request), question_id, game__slug=slug, rating=rating,
                           comment=UNCHANGED if comment is None else comment[:2000])  # fmt: skip
    return render(request, "questions/_feedback.html", {"question": question, "urls": turn_context(question)["urls"],
                                                         "thanked": True})


@require_POST
@chat_refusals
def booklets(request, slug: str, conversation_id):
    """The booklets ticked in a conversation's header: kept with the conversation."""
    asker = Asker.of(request)
    check_may_ask(asker)
    conversation = own_conversation(asker, conversation_id)
    game = get_object_or_404(Game.objects.with_askable_booklets(), slug=slug, pk=conversation.game_id)
    set_booklets(conversation, game_booklets(game, _ticked(request, game)))
    return HttpResponse(status=204)


def turn(request, slug: str, question_id):
    """One turn as it stands: the polling fallback asks for it every 3 s (`?try=n`, up to 15)
    after the event stream failed; answered, it is the final turn."""
    if not may_ask(request):
        return redirect_to_login(request.get_full_path())
    question = visible_question(asker(request), question_id, game__slug=slug)
    try:
        # at most POLL_MAX_TRIES: a 4,300-digit `try` parsed, then its next poll's URL did not
        tries = min(max(0, int(request.GET.get("try", "0"))), POLL_MAX_TRIES)
    except ValueError:
        tries = 0
    context = turn_context(question, poll_try=tries)
    if context["state"] == "polling" and tries >= POLL_MAX_TRIES:
        context.update(state="error", error=gave_up_message())
    return render(request, "questions/_turn.html", context)


def answer_fragment(request, slug: str, question_id):
    """The stored answer of a question, as safe HTML with its confidence. Seen only by
    whoever may see the question; 202 while it is being answered."""
    if not may_ask(request):
        return redirect_to_login(request.get_full_path())
    question = visible_question(asker(request), question_id, game__slug=slug)
    if not question.is_answered:
        return HttpResponse(status=202)  # still being answered: ask again later
    return render(request, "questions/_answer.html", answer_context(question))
