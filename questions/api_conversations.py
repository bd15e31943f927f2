"""JSON endpoints of conversations (mounted under /api/): a user's conversations and their
questions, newest first; one conversation; deleting one; feedback on an answer.

Who sees what is questions.conversations' rule: a user their own, staff every one, an
anonymous conversation whoever has its id. Anything else is a 404, never a hint it exists."""

from datetime import datetime
from uuid import UUID

from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from ninja.pagination import paginate
from ninja.responses import Status
from pydantic import StrictInt, field_validator

from runtime.api_errors import READ_ERRORS, ErrorOut, Pagination
from runtime.refusals import NotYours

from .auth import ASK_AUTH, asking_user
from .confidence import confidence_of
from .conversations import current_turns, visible_conversation, visible_conversations
from .models import Conversation, Question
from .services import Asker, rate_answer

router = Router(tags=["conversations"], auth=ASK_AUTH)


class ConversationOut(Schema):
    id: UUID
    gameId: UUID = Field(alias="game_id")
    gameName: str = Field(alias="game.name")
    title: str
    everyBooklet: bool = Field(alias="every_booklet")
    extensions: list[UUID]  # the chosen booklets (empty with everyBooklet)
    user: str | None  # the owner's username (staff see every user's); None: asked anonymously
    createdAt: datetime = Field(alias="created_at")
    updatedAt: datetime = Field(alias="updated_at")

    @staticmethod
    def resolve_extensions(conversation) -> list:
        return [extension.pk for extension in conversation.extensions.all()]

    @staticmethod
    def resolve_user(conversation) -> str | None:
        return conversation.user.get_username() if conversation.user else None


class TurnOut(Schema):
    questionId: UUID = Field(alias="id")
    status: str
    question: str = Field(alias="text")
    answer: str
    intent: str
    confidence: str | None
    error: str
    stopped: bool
    replaces: UUID | None = Field(alias="replaces_id")  # a regenerated answer: the one it replaced
    position: int | None = Field(description="The turn's place in its conversation (1, 2, …); a regenerated answer has "
                                             "the place of the one it replaced")
    rating: int | None
    feedbackComment: str = Field(alias="feedback_comment")
    createdAt: datetime = Field(alias="created_at")
    answeredAt: datetime | None = Field(alias="answered_at")

    @staticmethod
    def resolve_error(question) -> str:
        return question.error_message

    @staticmethod
    def resolve_confidence(question) -> str | None:
        if "deck" in question.diagnostics:  # a decklist is judged by its verdict
            return None
        found = confidence_of(question.best_score, question.diagnostics.get("confidence"), question.answer)
        return found.level if found else None


class FeedbackIn(Schema):
    rating: StrictInt | None = Field(..., description="1 (👍), -1 (👎) or null to withdraw it")  # not true nor "1"
    comment: str = Field("", max_length=2000)

    @field_validator("rating")
    @classmethod
    def up_or_down(cls, value: int | None) -> int | None:
        if value not in (None, *Question.Rating.values):
            raise ValueError(_("l'avis vaut 1 (👍), -1 (👎) ou null"))
        return value


class FeedbackOut(Schema):
    questionId: UUID
    rating: int | None
    comment: str
    feedbackAt: datetime | None


def _with_rows(conversations):
    return conversations.select_related("game", "user").prefetch_related("extensions")


@router.get("/conversations", response={200: list[ConversationOut], **READ_ERRORS}, url_name="oracle-conversations")
@paginate(Pagination)
def list_conversations(request, gameId: UUID | None = None):
    """The caller's conversations, the most recently active first (staff: everyone's)."""
    conversations = visible_conversations(asking_user(request))
    if gameId is not None:
        conversations = conversations.filter(game_id=gameId)
    return _with_rows(conversations).order_by("-updated_at")


@router.get("/conversations/{conversation_id}", response={200: ConversationOut, **READ_ERRORS}, url_name="oracle-conversation")
def get_conversation(request, conversation_id: UUID):
    """One conversation: its game, booklets, title and dates (404 unless it is the caller's;
    staff see every one)."""
    conversation = visible_conversation(asking_user(request), conversation_id)
    return _with_rows(Conversation.objects.filter(pk=conversation.pk)).get()


@router.get(
    "/conversations/{conversation_id}/questions", response={200: list[TurnOut], **READ_ERRORS}, url_name="oracle-conversation-questions"
)
@paginate(Pagination)
def list_turns(request, conversation_id: UUID):
    """Its questions and answers, the last turn first; a regenerated answer is in the place of the
    one it replaced (which is left out), however late it was asked."""
    conversation = visible_conversation(asking_user(request), conversation_id)
    return current_turns(conversation).reverse()


@router.delete("/conversations/{conversation_id}", response={204: None, **READ_ERRORS, 403: ErrorOut},
                url_name="oracle-conversation-delete")
def delete_conversation(request, conversation_id: UUID):
    """Delete it with its questions: its owner or staff (an anonymous one: staff only; anyone
    else who may see it gets 403)."""
    user = asking_user(request)
    conversation = visible_conversation(user, conversation_id)
    if not (user and (user.is_staff or user.pk == conversation.user_id)):
        raise NotYours(_("Seul son auteur ou l'équipe peut supprimer cette conversation."))
    conversation.delete()
    return Status(204, None)


@router.put("/ask/{question_id}/feedback", response={200: FeedbackOut, **READ_ERRORS, 403: ErrorOut, 409: ErrorOut},
             url_name="oracle-ask-feedback")
def give_feedback(request, question_id: UUID, payload: FeedbackIn):
    """👍 (1) or 👎 (-1) and an optional comment on an answer, by whoever asked it (an
    anonymous question: an anonymous visitor with its id, not a signed-in player); staff read
    others' feedback, never give it (403). 409 while the answer is being written."""
    question = rate_answer(Asker.of(request), question_id, rating=payload.rating, comment=payload.comment)
    return {
        "questionId": question.pk,
        "rating": question.rating,
        "comment": question.feedback_comment,
        "feedbackAt": question.feedback_at,
    }
