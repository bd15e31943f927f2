"""Pages of the questions app: the chat of one game (a conversation: its turns rendered by the
server, new turns through htmx, answers streamed over the htmx SSE extension), its actions
(stop, regenerate, feedback, booklets) and the stored answer's fragment."""

from __future__ import annotations

import json
import logging
from uuid import UUID

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_htmx.http import push_url

from games import suggestions
from games.models import Game
from rag.limits import MAX_HISTORY_TURNS, MAX_QUESTION_CHARS

from .access import visible_question
from .ask_flow.background import start_answering
from .ask_flow.intake import new_question, save_question
from .ask_flow.stop import request_stop
from .chat_turns import POLL_MAX_TRIES, answer_context, turn_context
from .conversations import (
    chosen_extensions, current_turns, history_for, record_feedback, start_conversation, title_from,
    visible_conversation,
)  # fmt: skip
from .models import Conversation, Question

MAX_MENTIONS = 50
MAX_CARD_NAME = 200
LISTED_CONVERSATIONS = 30

log = logging.getLogger(__name__)


def may_ask(request) -> bool:
    return request.user.is_authenticated or settings.ASK_ALLOW_ANONYMOUS


def asker(request):
    return request.user if request.user.is_authenticated else None


def selected_extensions(request, game: Game):
    """The booklets to tick on a fresh page: those of the querystring (?ext=<id>…, only this
    game's; a bare `?ext=` is the base booklet alone), every booklet of the game without one."""
    extensions = list(game.extensions.all())
    if "ext" not in request.GET:
        return extensions
    wanted = request.GET.getlist("ext")
    return [ext for ext in extensions if str(ext.pk) in wanted]


def chat_strings() -> dict[str, str]:
    """The chat script's messages, translated here so the script holds no UI text."""
    return {
        "offline": _("L'Oracle finalise hors-ligne…"),
        "tooLong": _("La question dépasse %(max)s caractères.") % {"max": MAX_QUESTION_CHARS},
        "failed": _("La connexion à l'Oracle a échoué. Vérifiez votre réseau et réessayez."),
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


def player_conversations(request, game: Game) -> list[Conversation]:
    """The player's own conversations about this game, newest first (none when anonymous)."""
    user = asker(request)
    if user is None:
        return []
    return list(Conversation.objects.filter(user=user, game=game).order_by("-updated_at")[:LISTED_CONVERSATIONS])


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
    game = get_object_or_404(Game.objects.prefetch_related("extensions"), slug=slug)
    conversation = None
    turns = []
    if conversation_id is not None:
        conversation = visible_conversation(asker(request), conversation_id, own=True)
        if conversation.game_id != game.pk:
            raise Http404  # another game's conversation
        selected = chosen_extensions(conversation)
        turns = [turn_context(q) for q in current_turns(conversation).select_related("game")]
    else:
        selected = selected_extensions(request, game)
    suggestions, placeholder = page_suggestions(game)
    context = {
        "game": game,
        "conversation": conversation,
        "turns": turns,
        "conversations": player_conversations(request, game),
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
            "strings": chat_strings(),
        },
    }
    return render(request, "questions/chat.html", context)


def _card_mentions(raw: str) -> list[str] | None:
    try:
        names = json.loads(raw or "[]")
    except ValueError:
        return None
    if not isinstance(names, list) or len(names) > MAX_MENTIONS:
        return None
    if not all(isinstance(n, str) and 0 < len(n) <= MAX_CARD_NAME for n in names):
        return None
    return names


def _ticked(request, game: Game) -> list | None:
    """The booklets ticked in the form: None when every booklet of the game is (present and
    future ones then), else the list (maybe empty: the base rules alone)."""
    extensions = list(game.extensions.all())
    wanted = set(request.POST.getlist("booklet"))
    ticked = [ext for ext in extensions if str(ext.pk) in wanted]
    return None if len(ticked) == len(extensions) else ticked


def _set_booklets(conversation: Conversation, ticked: list | None) -> None:
    conversation.every_booklet = ticked is None
    conversation.save(update_fields=["every_booklet", "updated_at"])
    conversation.extensions.set(ticked or [])


def _sticky_before(conversation: Conversation) -> list[str]:
    """The cards the conversation keeps from its earlier turns (the last turn's list)."""
    last = current_turns(conversation).order_by("-created_at").first()
    return last.sticky_cards_after() if last is not None else []


def _too_many(request) -> HttpResponse | None:
    from .api import over_limit  # the ask rate limits (runtime/ratelimit.py)
    from runtime.ratelimit import too_many_requests_message

    limited, wait = over_limit(request)
    if limited:
        return HttpResponse(too_many_requests_message(wait), status=429, content_type="text/plain; charset=utf-8")
    return None


def _start(question: Question, extensions) -> Question:
    save_question(question, extensions)  # saved before the page listens: never a 404 on its events
    start_answering(question.pk)
    return question


@require_POST
def ask(request, slug: str):
    """A question asked in the chat: stored in the current conversation (started on the first
    question), answered in the background; returns its turn, which listens to the answer's
    events, and pushes the conversation's URL."""
    if not may_ask(request):
        return HttpResponse(status=403)
    game = get_object_or_404(Game.objects.prefetch_related("extensions"), slug=slug)
    text = request.POST.get("question", "").strip()
    if not text:
        return HttpResponseBadRequest(_("Écrivez d'abord votre question."), content_type="text/plain; charset=utf-8")
    if len(text) > MAX_QUESTION_CHARS:
        return HttpResponseBadRequest(chat_strings()["tooLong"], content_type="text/plain; charset=utf-8")
    mentions = _card_mentions(request.POST.get("card_mentions", ""))
    if mentions is None:
        return HttpResponseBadRequest(_("Cartes citées illisibles."), content_type="text/plain; charset=utf-8")
    refused = _too_many(request)
    if refused:
        return refused
    ticked = _ticked(request, game)
    conversation_id = request.POST.get("conversation", "")
    if conversation_id:
        try:
            conversation = visible_conversation(asker(request), UUID(conversation_id), own=True)
        except ValueError:
            return HttpResponseBadRequest()
        if conversation.game_id != game.pk:
            return HttpResponseBadRequest()
        _set_booklets(conversation, ticked)  # the booklet choice belongs to the conversation
    else:
        conversation = start_conversation(user=asker(request), game=game, extensions=ticked, title=title_from(text))
    question, extensions = new_question(
        game=game, text=text, extensions=chosen_extensions(conversation), history=history_for(conversation),
        card_mentions=mentions, sticky_card_mentions=_sticky_before(conversation), user=asker(request),
        conversation=conversation,
    )  # fmt: skip
    _start(question, extensions)
    context = {
        **turn_context(question),
        "game": game,
        "conversation": conversation,
        "conversations": player_conversations(request, game),
        "history_note": history_note(min(len(question.history) + 1, MAX_HISTORY_TURNS)),  # this turn too, once answered
        "extensions": list(game.extensions.all()),
        "selected": extensions,
        "oob": True,
    }
    response = render(request, "questions/_asked.html", context)
    return push_url(response, reverse("oracle-chat-conversation", args=[game.slug, conversation.pk]))


@require_POST
def regenerate(request, slug: str, question_id):
    """Ask a turn again: a new Question replacing it, with the history before it."""
    if not may_ask(request):
        return HttpResponse(status=403)
    old = visible_question(asker(request), question_id, game__slug=slug)
    conversation = old.conversation
    if conversation is None:
        return HttpResponseBadRequest()
    question, extensions = new_question(
        game=old.game, text=old.text, extensions=chosen_extensions(conversation),
        history=history_for(conversation, before=old), card_mentions=old.card_mentions,
        sticky_card_mentions=old.sticky_card_mentions, user=asker(request), conversation=conversation, replaces=old,
    )  # fmt: skip
    _start(question, extensions)
    return render(request, "questions/_turn.html", turn_context(question))


@require_POST
def stop(request, slug: str, question_id):
    """« Arrêter »: the answer stops at the next token; its partial text is kept, marked."""
    if not may_ask(request):
        return HttpResponse(status=403)
    question = visible_question(asker(request), question_id, game__slug=slug)
    if not question.is_answered:
        request_stop(question.pk)
    return HttpResponse(status=204)


@require_POST
def feedback(request, slug: str, question_id):
    """👍 / 👎 and an optional comment on an answer."""
    if not may_ask(request):
        return HttpResponse(status=403)
    question = visible_question(asker(request), question_id, game__slug=slug)
    raw = request.POST.get("rating", "")
    try:
        rating = int(raw) if raw else question.rating
    except ValueError:
        return HttpResponseBadRequest()
    comment = request.POST.get("comment", question.feedback_comment)[:2000]
    try:
        record_feedback(question, rating=rating, comment=comment)
    except ValueError:
        return HttpResponseBadRequest()
    return render(request, "questions/_feedback.html", {"question": question, "urls": turn_context(question)["urls"],
                                                         "thanked": True})


@require_POST
def booklets(request, slug: str, conversation_id):
    """The booklets ticked in a conversation's header: kept with the conversation."""
    if not may_ask(request):
        return HttpResponse(status=403)
    conversation = visible_conversation(asker(request), conversation_id, own=True)
    game = get_object_or_404(Game.objects.prefetch_related("extensions"), slug=slug, pk=conversation.game_id)
    _set_booklets(conversation, _ticked(request, game))
    return HttpResponse(status=204)


def turn(request, slug: str, question_id):
    """One turn as it stands: the polling fallback asks for it every 3 s (`?try=n`, up to 15)
    after the event stream failed; answered, it is the final turn."""
    if not may_ask(request):
        return redirect_to_login(request.get_full_path())
    question = visible_question(asker(request), question_id, game__slug=slug)
    try:
        tries = max(0, int(request.GET.get("try", "0")))
    except ValueError:
        tries = 0
    context = turn_context(question, poll_try=tries)
    if context["state"] == "polling" and tries >= POLL_MAX_TRIES:
        context.update(state="error", error=_("L'Oracle n'a pas pu terminer sa réponse. Réessayez dans un instant."))
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
