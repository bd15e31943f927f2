"""Conversations: starting one, finding the ones a user may see, the history sent to the model
(the conversation's last turns) and feedback on an answer. The chat pages and the REST API
both go through here."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.db import transaction
from django.db.models import Max
from django.http import Http404
from django.utils import timezone

from games.models import Game
from rag.limits import MAX_HISTORY_TURNS

from .models import Conversation, Question

TITLE_CHARS = 80


def new_conversation(*, user, game: Game, every_booklet: bool = True, title: str = "") -> Conversation:
    """An unsaved conversation, its id already set (the ask stream's `meta` names it before
    anything is written; `save_conversation` stores it with the first question)."""
    return Conversation(user=user, game=game, every_booklet=every_booklet, title=title[:TITLE_CHARS])


def save_conversation(conversation: Conversation, extensions=()) -> Conversation:
    """Store a new conversation and, unless it asks about every booklet, its chosen ones."""
    with transaction.atomic():
        conversation.save(force_insert=True)
        if extensions and not conversation.every_booklet:
            conversation.extensions.set(extensions)
    return conversation


def start_conversation(*, user, game: Game, extensions=None, title: str = "") -> Conversation:
    """A new conversation of `user` (None: anonymous) about `game`. `extensions` None means
    every booklet of the game, present and future; a list (maybe empty) means those."""
    conversation = new_conversation(user=user, game=game, every_booklet=extensions is None, title=title)
    return save_conversation(conversation, extensions or ())


def chosen_extensions(conversation: Conversation) -> list:
    """The booklets (Extensions) the conversation asks about, besides the base rules."""
    if conversation.every_booklet:
        return list(conversation.game.extensions.order_by("name"))
    return list(conversation.extensions.order_by("name"))


def visible_conversations(user):
    """The conversations `user` may list: their own; staff see every one. Anonymous: none
    (an anonymous conversation is reachable by its id only)."""
    if user is None or not user.is_authenticated:
        return Conversation.objects.none()
    if user.is_staff:
        return Conversation.objects.all()
    return Conversation.objects.filter(user=user)


def visible_conversation(user, conversation_id: UUID, *, own: bool = False, session=None) -> Conversation:
    """The conversation `user` (None when anonymous) may see, or Http404 (never a hint that it
    exists). Staff see every one unless `own`: then it is one `user` may continue
    (`continuable`; `session`, the browser's, for an anonymous one it started)."""
    conversation = Conversation.objects.select_related("game").filter(pk=conversation_id).first()
    if conversation is None:
        raise Http404
    if own:
        return continuable(user, conversation, session)
    if conversation.user_id is None:
        return conversation
    if user is None or not (user.pk == conversation.user_id or user.is_staff):
        raise Http404
    return conversation


# A signed-in player who wrote into an ownerless conversation left their turn in a conversation
# missing from their list and readable by whoever has its id. An anonymous conversation is
# therefore continued anonymously (by its id), or by a player who signs in in the browser that
# started it (the chat page remembers it in the session, which Django keeps across a login):
# the conversation and its anonymous turns then become theirs. Anyone else: 404, as another's.
STARTED_HERE = "oracle_started_conversations"
STARTED_HERE_KEPT = 50  # the browser's last anonymous conversations


def continuable(user, conversation: Conversation, session=None) -> Conversation:
    """`conversation` if `user` (None when anonymous) may ask in it, reopen it in the chat or
    change its booklets, adopted if need be; else Http404. Staff too only in their own: their
    turn would land in another player's conversation."""
    if conversation.user_id is None:
        if user is None:
            return conversation
        if session is not None and str(conversation.pk) in session.get(STARTED_HERE, ()):
            return adopt(conversation, user)
        raise Http404
    if user is None or user.pk != conversation.user_id:
        raise Http404
    return conversation


def remember_started(session, conversation: Conversation) -> None:
    """Note in the browser's session that it started this anonymous conversation."""
    started = [pk for pk in session.get(STARTED_HERE, []) if pk != str(conversation.pk)]
    session[STARTED_HERE] = [*started, str(conversation.pk)][-STARTED_HERE_KEPT:]


def adopt(conversation: Conversation, user) -> Conversation:
    """Make an anonymous conversation and its anonymous turns `user`'s (once: Http404 if
    another took it meanwhile)."""
    with transaction.atomic():
        taken = Conversation.objects.filter(pk=conversation.pk, user__isnull=True).update(user=user)
        if not taken and not Conversation.objects.filter(pk=conversation.pk, user=user).exists():
            raise Http404
        conversation.questions.filter(user__isnull=True).update(user=user)
    conversation.user = user
    return conversation


@dataclass(frozen=True)
class FollowUp:
    """What a question asked within a conversation takes from it."""

    conversation: Conversation
    extensions: list | None  # its booklets; None: every one, looked up when the question is saved
    history: list[dict]  # its last answered turns
    sticky: list[str]  # the cards its last turn kept (for a client that sends none)


def follow_up_in(user, conversation_id: UUID, session=None) -> FollowUp:
    """A follow-up in a conversation `user` may continue (`continuable`), or Http404."""
    conversation = visible_conversation(user, conversation_id, own=True, session=session)
    last = current_turns(conversation).last()
    return FollowUp(
        conversation=conversation,
        extensions=None if conversation.every_booklet else chosen_extensions(conversation),
        history=history_for(conversation),
        sticky=last.sticky_cards_after() if last else [],
    )


def current_turns(conversation: Conversation):
    """Its questions in their places, oldest first, without the ones a regenerated answer
    replaced."""
    return conversation.turns().filter(regenerations__isnull=True)


def current_version(question: Question) -> Question:
    """What stands for this turn now: the question itself, or the last answer regenerated for it."""
    replacing = Question.objects.select_related("game", "conversation")
    while (newer := replacing.filter(replaces=question).first()) is not None:
        question = newer
    return question


def next_position(conversation_id) -> int:
    """The place of a new turn: after every question of the conversation. Called inside the
    transaction that saves the turn: it locks the conversation's row, so two follow-ups saved
    at once on PostgreSQL take one place each (the second reads the maximum once the first is
    committed). SQLite needs no lock: its transactions take the writer lock at BEGIN
    (`transaction_mode` IMMEDIATE)."""
    list(Conversation.objects.select_for_update().filter(pk=conversation_id).values_list("pk", flat=True))
    last = Question.objects.filter(conversation_id=conversation_id).aggregate(last=Max("position"))["last"]
    return (last or 0) + 1


def history_for(conversation: Conversation, *, before: Question | None = None, limit: int = MAX_HISTORY_TURNS):
    """The last `limit` answered turns, in their places, as the model's history
    ([{question, answer}]); `before` leaves out that turn and the ones after it (a regeneration)."""
    turns = current_turns(conversation).filter(status=Question.Status.DONE).exclude(answer="")
    if before is not None:
        turns = turns.filter(position__lt=before.position)
    last = list(turns.reverse()[:limit])
    return [{"question": turn.text, "answer": turn.answer} for turn in reversed(last)]


def title_from(question_text: str) -> str:
    """A conversation's title: its first question, cut at a word."""
    text = " ".join(question_text.split())
    if len(text) <= TITLE_CHARS:
        return text
    return text[: TITLE_CHARS - 1].rsplit(" ", 1)[0] + "…"


def record_feedback(question: Question, *, rating: int | None, comment: str = "") -> Question:
    """Store 👍 (+1) / 👎 (-1) and an optional comment on an answer; rating None withdraws it."""
    if rating not in (None, *Question.Rating.values):
        raise ValueError("rating must be 1, -1 or null")
    question.rating, question.feedback_comment = rating, comment.strip()
    question.feedback_at = timezone.now() if rating is not None or question.feedback_comment else None
    Question.objects.filter(pk=question.pk).update(
        rating=question.rating, feedback_comment=question.feedback_comment, feedback_at=question.feedback_at
    )
    return question
