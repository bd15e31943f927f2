"""JSON endpoints of the questions app (mounted under /api/): ask (SSE) and poll."""

import asyncio
import time
from functools import partial
from typing import Annotated
from uuid import UUID

from django.conf import settings
from django.http import Http404, StreamingHttpResponse
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from ninja.responses import Status
from ninja.schema import DjangoGetter
from pydantic import field_validator, model_validator

from games.models import Game
from rag.limits import MAX_HISTORY_TURNS, MAX_QUESTION_CHARS
from runtime import executors
from runtime.api_errors import ErrorOut
from runtime.refusals import NotReady

from . import lookups
from .confidence import confidence_of
from .access import may_see, visible_question
from .ask_flow import background
from .ask_flow.background import start_answering, unsaved
from .auth import ASK_AUTH, ASK_STREAM_AUTH, asking_user
from .conversations import continuable
from .models import Conversation
from .services import Asker, prepare_question, prepares_in_memory, save_asked
from .sse import AnswerStream

router = Router(tags=["questions"])
API_ERRORS = {code: ErrorOut for code in (400, 401, 403, 404, 409, 422, 429)}  # runtime/api_errors.py
STORED_ELSEWHERE_POLL_S = 0.05


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


def find_game(game_id):
    """The game, or None; remembered for ASK_LOOKUP_CACHE_S."""
    return lookups.games.load(game_id, lambda: Game.objects.with_askable_flag().filter(pk=game_id).first())


# The question is checked by questions.services in the setup pool before the response starts
# (ninja would check the rate limits in the event loop, where the cache's file or network I/O
# holds up every other stream), and saved after `meta` leaves, in the save pool.
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

    `meta` waits for no database write and for no other stream (issue 29): a game asked about
    in the last ASK_LOOKUP_CACHE_S needs no lookup (questions/lookups.py); the checks
    (questions.services.prepare_question) run in the ask setup pool (runtime/executors.py)
    when they read the database, in the event loop when they read only memory (a new question
    about every booklet: `prepares_in_memory`); the question is stored by the save pool while
    `meta` leaves (`GET /api/ask/{id}` says 202 meanwhile), then answered by the answer pool."""
    game = lookups.games.get(payload.gameId)
    if game is None:
        game = await lookups.coalesced(("game", payload.gameId), find_game, payload.gameId)
    asker = Asker.of(request)
    if payload.conversationId is not None:
        await conversation_stored(asker.user, payload.conversationId)
    prepare = partial(
        prepare_question, asker, game=game, text=payload.question, conversation_id=payload.conversationId,
        extensions=payload.extensions, history=[turn.dict() for turn in payload.history],
        card_mentions=payload.cardMentions, sticky_card_mentions=payload.stickyCardMentions,
    )  # fmt: skip
    if prepares_in_memory(payload.conversationId, payload.extensions):
        asked = prepare()
    else:
        asked = await executors.setup_async(prepare)()
    stream = AnswerStream(asked.question.pk, settings.ASK_HEARTBEAT_S, asked.conversation.pk)
    start_answering(asked.question.pk, stream.emit, save=partial(save_asked, asked), question=asked.question)
    response = StreamingHttpResponse(stream.events(), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


async def conversation_stored(user, conversation_id) -> None:
    """A follow-up may name the conversation `meta` just named while the save pool still
    stores it: by milliseconds, or by seconds while an ingest holds SQLite's writer lock. When
    this process is storing it and `user` may continue it (`continuable`, the look-up's rule),
    wait for that save, in the event loop (no setup thread is held), for at most
    ASK_FOLLOW_UP_WAIT_S; the look-up then finds it. A save still running after that is a 409
    to try again, not a 404; a failed save leaves no conversation (its stream said so): 404.
    Anyone else waits for nothing and gets the look-up's 404. Another web process's save
    (several behind a load balancer) is waited for the same way: `stored_elsewhere`."""
    pending = background.storing(conversation_id)
    if pending is None:
        if settings.REDIS_URL:
            await stored_by_another_process(user, conversation_id)
        return
    try:
        continuable(user, pending.conversation)  # no session: the ask stream records no start in it
    except Http404:
        return
    try:
        await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(pending.saved)), settings.ASK_FOLLOW_UP_WAIT_S)
    except TimeoutError:
        raise NotReady(_("La conversation est encore en cours d'enregistrement : réessayez dans un instant.")) from None


async def stored_by_another_process(user, conversation_id) -> None:
    """Another web process says it is storing this conversation, for `user`: wait until its
    row is there or that process's save has ended (failed: the look-up's 404), at most
    ASK_FOLLOW_UP_WAIT_S (then 409), looking every STORED_ELSEWHERE_POLL_S."""
    mark = background.owner_mark(user.pk if user is not None else None)
    deadline = time.monotonic() + settings.ASK_FOLLOW_UP_WAIT_S
    exists = Conversation.objects.filter(pk=conversation_id).exists
    # the mark first: a follow-up of a conversation nobody is storing (nearly all) reads nothing more
    while await executors.setup_async(background.stored_elsewhere)(conversation_id) == mark:
        if await executors.setup_async(exists)():
            return
        if time.monotonic() >= deadline:
            raise NotReady(_("La conversation est encore en cours d'enregistrement : réessayez dans un instant."))
        await asyncio.sleep(STORED_ELSEWHERE_POLL_S)


def pending_or_visible(user, question_id):
    """The stored question `user` may see, or one this process is storing: `meta` names it a
    few milliseconds before the save pool writes it (ask_flow/background.py)."""
    try:
        return visible_question(user, question_id)
    except Http404:
        question = unsaved(question_id)
        if question is None or not may_see(user, question):
            raise
        return question


def _id(value) -> str | None:
    return str(value) if value else None


def _confidence_level(question) -> str | None:
    if "deck" in question.diagnostics:  # a decklist is judged by its verdict
        return None
    found = confidence_of(question.best_score, question.diagnostics.get("confidence"), question.answer)
    return found.level if found else None


@router.get(
    "/{question_id}",
    auth=ASK_AUTH,
    response={200: AnswerOut, 202: PendingOut, **API_ERRORS},
    url_name="oracle-ask-detail",
)
def get_answer(request, question_id: UUID):
    """200 with the answer once done (or failed, with `error`), 202 while pending, 404 unknown."""
    question = pending_or_visible(asking_user(request), question_id)
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
        "error": question.error_message,
        "answeredAt": question.answered_at.isoformat() if question.answered_at else None,
        "stickyCardMentions": question.sticky_cards_after(),
    })
