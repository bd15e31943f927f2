"""JSON endpoints of the questions app (mounted under /api/): ask (SSE) and poll."""

import math
from typing import Annotated
from uuid import UUID

from django.conf import settings
from django.http import JsonResponse, StreamingHttpResponse
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from ninja.responses import Status
from ninja.schema import DjangoGetter
from pydantic import field_validator, model_validator

from games.models import Extension, Game
from rag.limits import MAX_HISTORY_TURNS, MAX_QUESTION_CHARS
from runtime import executors
from runtime.api_errors import ErrorOut, error_body, validation_body
from runtime.ratelimit import ask_throttles, too_many_requests_message

from . import lookups
from .confidence import confidence_of
from .access import visible_question
from .ask_flow.background import start_answering
from .ask_flow.intake import new_question
from .auth import ASK_AUTH, ASK_STREAM_AUTH, asking_user
from .conversations import FollowUp, follow_up_in, new_conversation, title_from
from .sse import AnswerStream

router = Router(tags=["questions"])
API_ERRORS = {code: ErrorOut for code in (400, 401, 403, 404, 422, 429)}  # runtime/api_errors.py


# Every field bounded before anything is stored (a question once stored 4.8 MB of mentions).
CardName = Annotated[str, Field(min_length=1, max_length=200)]  # the longest Magic name is 141


class HistoryTurn(Schema):
    question: str = Field("", max_length=4000)
    answer: str = Field("", max_length=20000)

    @model_validator(mode="before")
    @classmethod
    def an_object(cls, value):
        """`[1]` or `[null]` once passed as empty turns: a turn is an object. (ninja hands the
        value over wrapped in its DjangoGetter.)"""
        raw = value._obj if isinstance(value, DjangoGetter) else value
        if not isinstance(raw, dict):
            raise ValueError(_("chaque échange de l'historique est un objet {question, answer}"))
        return value


class AskIn(Schema):
    gameId: UUID
    question: str = Field(..., min_length=1, max_length=MAX_QUESTION_CHARS)
    # None (the field left out): every booklet of the game; [] : the base booklet alone
    extensions: list[UUID] | None = None
    history: list[HistoryTurn] = Field(default_factory=list, max_length=MAX_HISTORY_TURNS)
    cardMentions: list[CardName] = Field(default_factory=list, max_length=50)
    stickyCardMentions: list[CardName] = Field(default_factory=list, max_length=80)
    # A follow-up in this conversation: its booklets and its last turns (not `extensions` nor
    # `history`); left out, a new conversation starts and `meta` names it.
    conversationId: UUID | None = None

    @field_validator("question")
    @classmethod
    def not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(_("la question est vide"))
        return value.strip()


class AnswerOut(Schema):
    questionId: str
    conversationId: str | None
    status: str
    question: str
    answer: str
    intent: str
    bestScore: float | None
    confidence: str | None  # high | medium | low (questions.confidence), None without passages
    error: str
    answeredAt: str | None
    stickyCardMentions: list[str]  # the cards to send back with the next question


class PendingOut(Schema):
    questionId: str
    conversationId: str | None
    status: str


def invalid(field: str, message: str) -> JsonResponse:
    """A 422 in the API's one error shape (runtime/api_errors.py), naming the field."""
    return JsonResponse(validation_body([{"loc": ["body", "payload", field], "msg": message}]), status=422)


def find_game(game_id):
    """The game, or None; remembered for ASK_LOOKUP_CACHE_S."""
    game = Game.objects.filter(pk=game_id).first()
    if game is not None:
        lookups.games.put(game.pk, game)
    return game


def find_extensions(game: Game, wanted: set) -> list | None:
    """The game's booklets with these ids, or None when one is unknown or another game's."""
    extensions = list(Extension.objects.filter(game=game, pk__in=wanted))
    return extensions if len(extensions) == len(wanted) else None


def over_limit(request) -> tuple[bool, float | None]:
    """The ask rate limits (runtime/ratelimit.py): whether one is exceeded, and the seconds
    to wait when known. Fresh throttle objects: they keep per-request state."""
    waits = [throttle.wait() for throttle in ask_throttles() if not throttle.allow_request(request)]
    return bool(waits), max((wait for wait in waits if wait is not None), default=None)


def too_many_requests(request, wait) -> JsonResponse:
    """The 429 the API answers for ninja's throttles (same translated body), with Retry-After."""
    response = JsonResponse(error_body(too_many_requests_message(wait)), status=429)
    if wait is not None:
        response["Retry-After"] = str(math.ceil(wait))
    return response


def _unsaved(request, payload: AskIn, game: Game, extensions: list | None, follow_up: FollowUp | None):
    user = asking_user(request)
    if follow_up is None:  # the first turn of a new conversation, stored with the question
        conversation = new_conversation(
            user=user, game=game, every_booklet=payload.extensions is None, title=title_from(payload.question)
        )
        history = [turn.dict() for turn in payload.history]
    else:
        conversation, extensions, history = follow_up.conversation, follow_up.extensions, follow_up.history
    return new_question(
        game=game,
        text=payload.question,
        extensions=extensions,
        history=history,
        card_mentions=payload.cardMentions,
        sticky_card_mentions=payload.stickyCardMentions or (follow_up.sticky if follow_up else []),
        user=user,
        conversation=conversation,
    )


# The rate limits are checked by the view, in the setup pool: ninja would check them in the
# event loop, where the cache's file or network I/O holds up every other stream.
@router.post(
    "/stream",
    auth=ASK_STREAM_AUTH,
    response=API_ERRORS,
    url_name="oracle-ask-stream",
    openapi_extra={"responses": {200: {"description": "text/event-stream: meta, phase, context, token, diagnostics, done or error",
                                       "content": {"text/event-stream": {"schema": {"type": "string"}}}}}},
)
async def ask_stream(request, payload: AskIn):
    """Ask a question; the answer streams as server-sent events (docs/asking.md).

    Nothing here waits for other streams: a game asked about in the last ASK_LOOKUP_CACHE_S
    needs no lookup (questions/lookups.py), other lookups (a follow-up's conversation) run in
    the ask setup pool (runtime/executors.py), not on Django's thread-sensitive thread. The
    Question row (and the conversation a first question starts) is saved in the save pool
    while `meta` is sent; the answer then waits for the answer pool."""
    limited, wait = await executors.setup_async(over_limit)(request)
    if limited:
        return too_many_requests(request, wait)
    game = lookups.games.get(payload.gameId)
    if game is None:
        game = await lookups.coalesced(("game", payload.gameId), find_game, payload.gameId)
    if game is None:
        return invalid("gameId", _("jeu inconnu"))
    follow_up = None
    if payload.conversationId is not None:
        follow_up = await executors.setup_async(follow_up_in)(asking_user(request), payload.conversationId)
        if follow_up.conversation.game_id != game.pk:
            return invalid("conversationId", _("conversation sur un autre jeu"))
    # None: every booklet of the game, looked up when the question is saved (after `meta`)
    extensions = None if payload.extensions is None else []
    if follow_up is None and payload.extensions:
        extensions = await executors.setup_async(find_extensions)(game, set(payload.extensions))
        if extensions is None:
            return invalid("extensions", _("livret inconnu ou d'un autre jeu"))
    checked = _unsaved(request, payload, game, extensions, follow_up)
    question = checked[0]
    stream = AnswerStream(question.pk, settings.ASK_HEARTBEAT_S, question.conversation_id)
    start_answering(question.pk, stream.emit, unsaved=checked)
    response = StreamingHttpResponse(stream.events(), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _id(value) -> str | None:
    return str(value) if value else None


def _confidence_level(question) -> str | None:
    if "deck" in question.diagnostics:  # a decklist is judged by its verdict
        return None
    found = confidence_of(question.best_score, question.diagnostics.get("confidence"))
    return found.level if found else None


@router.get(
    "/{question_id}",
    auth=ASK_AUTH,
    response={200: AnswerOut, 202: PendingOut, **API_ERRORS},
    url_name="oracle-ask-detail",
)
def get_answer(request, question_id: UUID):
    """200 with the answer once done (or failed, with `error`), 202 while pending, 404 unknown."""
    question = visible_question(asking_user(request), question_id)
    if not question.is_answered:
        return Status(202, {"questionId": str(question.pk), "conversationId": _id(question.conversation_id),
                            "status": question.status})  # fmt: skip
    return Status(200, {
        "questionId": str(question.pk),
        "conversationId": _id(question.conversation_id),
        "status": question.status,
        "question": question.text,
        "answer": question.answer,
        "intent": question.intent,
        "bestScore": question.best_score,
        "confidence": _confidence_level(question),
        "error": question.error,
        "answeredAt": question.answered_at.isoformat() if question.answered_at else None,
        "stickyCardMentions": question.sticky_cards_after(),
    })
