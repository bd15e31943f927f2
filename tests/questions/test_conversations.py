"""Conversations: what a player gets back when they reopen one, and who may see it."""

import pytest
from django.http import Http404

from questions.ask_flow.intake import create_question
from questions.conversations import (
    chosen_extensions,
    history_for,
    record_feedback,
    start_conversation,
    title_from,
    visible_conversation,
    visible_conversations,
)
from questions.models import Question
from tests.factories import ExtensionFactory, GameFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db


def answered(conversation, text, answer, **fields):
    question = create_question(game=conversation.game, text=text, user=conversation.user, conversation=conversation, **fields)
    question.mark_done(answer=answer, intent="rules", best_score=0.9, diagnostics={})
    return question


def test_history_is_the_conversations_last_answered_turns_oldest_first():
    conversation = start_conversation(user=UserFactory(), game=GameFactory())
    for n in range(7):
        answered(conversation, f"q{n}", f"a{n}")
    create_question(game=conversation.game, text="pending", conversation=conversation)  # not answered yet
    history = history_for(conversation, limit=5)
    assert [turn["question"] for turn in history] == ["q2", "q3", "q4", "q5", "q6"]
    assert history[-1] == {"question": "q6", "answer": "a6"}


def test_a_regenerated_answer_replaces_the_old_one_in_the_history():
    conversation = start_conversation(user=UserFactory(), game=GameFactory())
    first = answered(conversation, "Combien de cartes ?", "Sept.")
    answered(conversation, "Combien de cartes ?", "Cinq cartes (p. 3).", replaces=first)
    assert history_for(conversation) == [{"question": "Combien de cartes ?", "answer": "Cinq cartes (p. 3)."}]


def test_a_regenerated_earlier_turn_keeps_its_place_in_the_history():
    conversation = start_conversation(user=UserFactory(), game=GameFactory())
    first = answered(conversation, "q1", "a1")
    answered(conversation, "q2", "a2")
    answered(conversation, "q1", "a1 again", replaces=first)
    assert [turn["answer"] for turn in history_for(conversation)] == ["a1 again", "a2"]
    assert history_for(conversation, before=first) == []


def test_every_booklet_includes_booklets_added_later_a_choice_does_not():
    game = GameFactory()
    chosen = ExtensionFactory(game=game)
    everything = start_conversation(user=None, game=game)
    some = start_conversation(user=None, game=game, extensions=[chosen])
    later = ExtensionFactory(game=game)
    assert set(chosen_extensions(everything)) == {chosen, later}
    assert chosen_extensions(some) == [chosen]
    assert chosen_extensions(start_conversation(user=None, game=game, extensions=[])) == []


def test_a_user_never_sees_another_users_conversation_staff_do():
    owner, other, staff = UserFactory(), UserFactory(), StaffFactory()
    conversation = start_conversation(user=owner, game=GameFactory())
    assert visible_conversation(owner, conversation.pk) == conversation
    assert visible_conversation(staff, conversation.pk) == conversation
    with pytest.raises(Http404):
        visible_conversation(other, conversation.pk)
    with pytest.raises(Http404):
        visible_conversation(None, conversation.pk)
    with pytest.raises(Http404):  # the chat page reopens only one's own
        visible_conversation(staff, conversation.pk, own=True)
    assert list(visible_conversations(other)) == []
    assert list(visible_conversations(staff)) == [conversation]


def test_feedback_is_stored_and_can_be_withdrawn():
    conversation = start_conversation(user=UserFactory(), game=GameFactory())
    question = answered(conversation, "q", "a")
    record_feedback(question, rating=-1, comment="  la page 4 dit le contraire ")
    stored = Question.objects.get(pk=question.pk)
    assert (stored.rating, stored.feedback_comment) == (-1, "la page 4 dit le contraire")
    assert stored.feedback_at is not None
    record_feedback(stored, rating=None)
    assert Question.objects.get(pk=question.pk).feedback_at is None
    with pytest.raises(ValueError):
        record_feedback(stored, rating=5)


def test_a_title_is_the_first_question_cut_at_a_word():
    assert title_from("Combien de  cartes\n en main ?") == "Combien de cartes en main ?"
    long = title_from("mot " * 40)
    assert len(long) <= 80 and long.endswith("…") and not long.endswith(" …")
