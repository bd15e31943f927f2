"""Turns got places of their own (questions 0007): the questions asked before keep the order
they were shown in; a turn regenerated twice before (two clicks, two new answers) is
replaced once, by the latest (0008)."""

from datetime import datetime, timedelta, timezone

import pytest

from tests.factories import GameFactory, UserFactory
from tests.questions.test_api_token_uuid_migration import AFTER, migrate

BEFORE = [("questions", "0006_apitoken_expiry_creator")]
ASKED = datetime(2026, 11, 2, 8, 30, tzinfo=timezone.utc)


@pytest.mark.django_db(transaction=True)
def test_questions_asked_before_keep_their_order_and_a_turn_regenerated_twice_is_replaced_once():
    from questions.conversations import current_turns
    from questions.models import Conversation, Question

    bob, game = UserFactory(), GameFactory()
    old_apps = migrate(BEFORE)
    try:
        OldConversation, OldQuestion = old_apps.get_model("questions", "Conversation"), old_apps.get_model("questions", "Question")
        talk = OldConversation.objects.create(user_id=bob.pk, game_id=game.pk, title="Pioche")
        rows = [OldQuestion.objects.create(game_id=game.pk, user_id=bob.pk, conversation=talk, text=text)
                for text in ["Un ?", "Deux ?", "Un ?", "Un ?"]]  # fmt: skip
        OldQuestion.objects.filter(pk__in=[rows[2].pk, rows[3].pk]).update(replaces=rows[0])  # regenerated twice
        for n, row in enumerate(reversed(rows)):  # asked in this order, whatever their ids
            OldQuestion.objects.filter(pk=row.pk).update(created_at=ASKED - timedelta(minutes=n))
        OldQuestion.objects.create(game_id=game.pk, text="Hors conversation")
    finally:
        migrate(AFTER)

    conversation = Conversation.objects.get(pk=talk.pk)
    assert [Question.objects.get(pk=row.pk).position for row in rows] == [1, 2, 3, 4]
    assert [q.pk for q in current_turns(conversation)] == [rows[1].pk, rows[3].pk]  # the latest answer stands
    assert Question.objects.get(pk=rows[3].pk).replaces_id == rows[2].pk
    assert Question.objects.get(text="Hors conversation").position is None


@pytest.mark.django_db(transaction=True)
def test_a_turn_regenerated_twice_whose_first_answer_was_regenerated_again_migrates():
    """Two clicks made R1 and R2 for Q, then R1 was regenerated (S): moving R2 under R1 made R1
    replaced twice, the constraint failed and left the database half-migrated."""
    from questions.conversations import current_turns
    from questions.models import Conversation, Question

    bob, game = UserFactory(), GameFactory()
    old_apps = migrate(BEFORE)
    try:
        OldConversation, OldQuestion = old_apps.get_model("questions", "Conversation"), old_apps.get_model("questions", "Question")
        talk = OldConversation.objects.create(user_id=bob.pk, game_id=game.pk, title="Pioche")
        asked = OldQuestion.objects.create(game_id=game.pk, user_id=bob.pk, conversation=talk, text="Un ?")
        first, second = (OldQuestion.objects.create(game_id=game.pk, user_id=bob.pk, conversation=talk, text="Un ?", replaces=asked)
                         for _ in range(2))  # fmt: skip
        again = OldQuestion.objects.create(game_id=game.pk, user_id=bob.pk, conversation=talk, text="Un ?", replaces=first)
        for n, row in enumerate(reversed([asked, first, second, again])):
            OldQuestion.objects.filter(pk=row.pk).update(created_at=ASKED - timedelta(minutes=n))
    finally:
        migrate(AFTER)

    assert Question.objects.get(pk=second.pk).replaces_id == again.pk
    assert [q.pk for q in current_turns(Conversation.objects.get(pk=talk.pk))] == [second.pk]
