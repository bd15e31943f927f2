"""A question before it is answered: built from a request (its id known at once, for the
stream's `meta`), then saved with its booklets."""

from __future__ import annotations

from django.db import transaction

from games.models import Extension, Game

from ..conversations import next_position, save_conversation
from ..models import Conversation, Question


def new_question(
    *, game: Game, text: str, extensions=(), history=(), card_mentions=(), sticky_card_mentions=(), user=None,
    conversation=None, replaces=None,
) -> tuple[Question, list]:
    """An unsaved Question (its id already set) and its booklets, for `save_question`
    (`extensions` None: every booklet of the game). In a
    `conversation`, the caller passes the conversation's history (questions.conversations.
    history_for) and booklets; a regeneration (`replaces`) takes the place of the turn it replaces."""
    question = Question(
        game=game,
        text=text,
        history=list(history),
        card_mentions=list(card_mentions),
        sticky_card_mentions=list(sticky_card_mentions),
        user=user,
        conversation=conversation,
        replaces=replaces,
        position=replaces.position if replaces is not None else None,
    )
    return question, None if extensions is None else list(extensions)


def save_question(question: Question, extensions) -> Question:
    """Save it with its booklets; `extensions` None means every booklet of the game, looked up
    here, in the save pool, so the stream's `meta` never waits for it. A conversation the
    question starts (unsaved, from `conversations.new_conversation`) is stored first, with the
    same booklets. A new turn takes the conversation's next place."""
    with transaction.atomic():
        conversation = question.conversation if question.conversation_id is not None else None
        if conversation is not None and conversation._state.adding:
            save_conversation(conversation, extensions or ())
            question.position = 1
        elif conversation is not None and question.position is None:
            question.position = next_position(question.conversation_id)
        question.save(force_insert=True)
        if extensions is None:
            extensions = list(Extension.objects.filter(game_id=question.game_id))
        if extensions:
            question.extensions.set(extensions)
        if question.conversation_id is not None:  # the conversation moves to the top of the list
            Conversation.objects.filter(pk=question.conversation_id).update(updated_at=question.created_at)
    return question


def create_question(**fields) -> Question:
    return save_question(*new_question(**fields))
