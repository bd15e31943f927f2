"""JSON endpoints of the questions app (mounted under /api/): ask (SSE) and poll."""

from uuid import UUID

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import JsonResponse, StreamingHttpResponse
from ninja import Field, Router, Schema
from ninja.responses import Status
from pydantic import field_validator

from games.models import Extension, Game
from oracle_site.ratelimit import ask_throttles

from .auth import ASK_AUTH, asking_user
from .models import Question
from .services import new_question, start_answering
from .sse import AnswerStream

router = Router(tags=["questions"])


class HistoryTurn(Schema):
    question: str = Field("", max_length=4000)
    answer: str = Field("", max_length=20000)


class AskIn(Schema):
    gameId: UUID
    question: str = Field(..., min_length=1, max_length=500)
    extensions: list[UUID] = Field(default_factory=list)
    history: list[HistoryTurn] = Field(default_factory=list, max_length=5)
    cardMentions: list[str] = Field(default_factory=list, max_length=50)
    stickyCardMentions: list[str] = Field(default_factory=list, max_length=80)

    @field_validator("question")
    @classmethod
    def not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("la question est vide")
        return value.strip()


class AnswerOut(Schema):
    questionId: str
    status: str
    question: str
    answer: str
    intent: str
    bestScore: float | None
    error: str
    answeredAt: str | None


class PendingOut(Schema):
    questionId: str
    status: str


def invalid(field: str, message: str) -> JsonResponse:
    """A 422 shaped like ninja's own validation errors, naming the field."""
    detail = [{"type": "value_error", "loc": ["body", "payload", field], "msg": message}]
    return JsonResponse({"detail": detail}, status=422)


def _check(request, payload: AskIn):
    """Validate (reads only) and build the unsaved question with its booklets."""
    game = Game.objects.filter(pk=payload.gameId).first()
    if game is None:
        return invalid("gameId", "jeu inconnu")
    wanted = set(payload.extensions)
    extensions = list(Extension.objects.filter(game=game, pk__in=wanted))
    if len(extensions) != len(wanted):
        return invalid("extensions", "livret inconnu ou d'un autre jeu")
    return new_question(
        game=game,
        text=payload.question,
        extensions=extensions,
        history=[turn.dict() for turn in payload.history],
        card_mentions=payload.cardMentions,
        sticky_card_mentions=payload.stickyCardMentions,
        user=asking_user(request),
    )


@router.post("/ask/stream", auth=ASK_AUTH, throttle=ask_throttles(), url_name="oracle-ask-stream")
async def ask_stream(request, payload: AskIn):
    """Ask a question; the answer streams as server-sent events (docs/asking.md)."""
    checked = await sync_to_async(_check)(request, payload)
    if isinstance(checked, JsonResponse):
        return checked
    question = checked[0]
    stream = AnswerStream(question.pk, settings.ASK_HEARTBEAT_S)
    start_answering(question.pk, stream.emit, unsaved=checked)
    response = StreamingHttpResponse(stream.events(), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@router.get(
    "/ask/{question_id}",
    auth=ASK_AUTH,
    response={200: AnswerOut, 202: PendingOut},
    url_name="oracle-ask-detail",
)
def get_answer(request, question_id: UUID):
    """200 with the answer once done (or failed, with `error`), 202 while pending, 404 unknown."""
    question = _visible_question(request, question_id)
    if not question.is_answered:
        return Status(202, {"questionId": str(question.pk), "status": question.status})
    return Status(200, {
        "questionId": str(question.pk),
        "status": question.status,
        "question": question.text,
        "answer": question.answer,
        "intent": question.intent,
        "bestScore": question.best_score,
        "error": question.error,
        "answeredAt": question.answered_at.isoformat() if question.answered_at else None,
    })


def _visible_question(request, question_id: UUID) -> Question:
    """A signed-in user sees their own questions (staff: all); anonymous ones are public by id."""
    from django.http import Http404

    question = Question.objects.filter(pk=question_id).first()
    user = asking_user(request)
    if question is None:
        raise Http404
    if question.user_id and not (user and (user.pk == question.user_id or user.is_staff)):
        raise Http404
    return question
