"""Two follow-ups of one conversation saved at the same moment take one place each: the
second save waits for the first (a row lock on PostgreSQL, the writer lock on SQLite), then
reads the conversation's last place (questions.conversations.next_position). SQLite's
transactions take the writer lock at BEGIN, so there the order is given whatever the code
does; the PostgreSQL pass is the one that checks the lock."""

import threading

import pytest
from django.db import connection, connections, transaction

from questions.ask_flow.intake import create_question, new_question, save_question
from questions.conversations import start_conversation
from questions.models import Question
from tests.factories import GameFactory, UserFactory
from tests.reliability.processes import wait_for

pytestmark = pytest.mark.django_db(transaction=True)  # two connections, two transactions


def _lock_waiters() -> int:
    """Other sessions of this database waiting on a lock (PostgreSQL). The statistics are read
    afresh: inside a transaction PostgreSQL keeps its first snapshot of them."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_two_follow_ups_saved_at_once_take_the_next_two_places():
    conversation = start_conversation(user=UserFactory(), game=GameFactory())
    create_question(game=conversation.game, text="Combien de cartes ?", user=conversation.user, conversation=conversation)
    saved_second: list = []  # the saved question, or what the save raised
    started = threading.Event()

    def second_follow_up():
        try:
            started.set()
            saved_second.append(save_question(*new_question(
                game=conversation.game, text="Et à six ?", user=conversation.user, conversation=conversation)))
        except Exception as exc:  # noqa: BLE001 - shown by the assertion below
            saved_second.append(exc)
        finally:
            connections.close_all()

    with transaction.atomic():  # the first follow-up's save, not yet committed
        first = save_question(*new_question(
            game=conversation.game, text="Et à cinq ?", user=conversation.user, conversation=conversation))
        other = threading.Thread(target=second_follow_up)
        other.start()
        assert started.wait(10)
        if connection.vendor == "postgresql":  # the other save waits on the lock, or it is done without waiting
            wait_for(lambda: _lock_waiters() > 0 or not other.is_alive(), 30, 0.02, "the second save to wait or end")
    other.join(30)
    assert not other.is_alive()
    assert isinstance(saved_second[0], Question), saved_second
    places = sorted(Question.objects.filter(conversation=conversation).values_list("position", flat=True))
    assert places == [1, 2, 3]
    assert {first.position, saved_second[0].position} == {2, 3}
