"""The staff pages of questions, conversations and API tokens read their rows' players, games
and booklets with the rows: as many queries for 30 rows as for 5."""

import pytest

from questions.models import ApiToken, Conversation
from tests.factories import ExtensionFactory, GameFactory, QuestionFactory, UserFactory
from tests.support.queries import page_queries

pytestmark = pytest.mark.django_db


def add_conversations(n: int) -> None:
    """Each of a player of their own (the player column may be empty: an anonymous one)."""
    game = GameFactory()
    for _ in range(n):
        Conversation.objects.create(game=game, user=UserFactory(), title="Pneus pluie")


def add_tokens(n: int) -> None:
    for _ in range(n):
        ApiToken.issue(UserFactory(), "script", created_by=UserFactory())


def add_booklets(n: int) -> None:
    """Booklets of games of their own: the booklets' multi-select names each with its game."""
    for _ in range(n):
        ExtensionFactory()


@pytest.mark.parametrize(("url", "add_rows"), [
    ("/admin/questions/conversation/", add_conversations),
    ("/admin/questions/apitoken/", add_tokens),
    ("/admin/questions/question/{question}/change/", add_booklets),
    ("/admin/questions/conversation/{conversation}/change/", add_booklets),
])  # fmt: skip
def test_a_staff_page_reads_as_many_queries_for_30_rows_as_for_5(client, alice, url, add_rows):
    question = QuestionFactory()
    conversation = Conversation.objects.create(game=question.game, user=None)
    url = url.format(question=question.pk, conversation=conversation.pk)
    client.force_login(alice)
    add_rows(5)
    with_5 = page_queries(client, url)

    add_rows(25)

    assert page_queries(client, url) == with_5
