"""Every conversation of a player stays reachable: the chat lists the newest with how many there
are in all, a page lists them all; and a long conversation reopens in a bounded number of
queries."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from questions.ask_flow.intake import create_question
from questions.conversations import start_conversation
from questions.models import Conversation
from questions.views import LISTED_CONVERSATIONS
from tests.factories import ExtensionFactory, GameFactory, UserFactory

pytestmark = pytest.mark.django_db


def conversations(bob, game, count):
    made = [start_conversation(user=bob, game=game, title=f"Partie {n}") for n in range(count)]
    for n, conversation in enumerate(made):  # « Partie 0 » the oldest
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now() - timedelta(minutes=count - n))
    return made


def test_the_chat_counts_every_conversation_and_links_to_the_older_ones(client, bob):
    game = GameFactory(rules=True)
    conversations(bob, game, LISTED_CONVERSATIONS + 15)
    start_conversation(user=UserFactory(), game=game, title="Celle d'un autre")
    client.force_login(bob)

    page = client.get(reverse("oracle-chat", args=[game.slug])).content.decode()

    assert f"Vos conversations ({LISTED_CONVERSATIONS + 15})" in page
    assert f"Partie {LISTED_CONVERSATIONS + 14}<" in page and "Partie 0<" not in page
    assert reverse("oracle-chat-conversations", args=[game.slug]) in page


def test_the_conversations_page_reaches_the_oldest_one_and_no_one_elses(client, bob):
    game = GameFactory(rules=True)
    made = conversations(bob, game, LISTED_CONVERSATIONS + 15)
    start_conversation(user=UserFactory(), game=game, title="Celle d'un autre")
    client.force_login(bob)
    url = reverse("oracle-chat-conversations", args=[game.slug])

    first, second = client.get(url).content.decode(), client.get(url + "?page=2").content.decode()

    assert "Plus anciennes" in first and "Page 1 sur 2" in first and "Partie 0<" not in first
    assert reverse("oracle-chat-conversation", args=[game.slug, made[0].pk]) in second and "Plus récentes" in second
    assert "Celle d'un autre" not in first + second
    assert client.get(url + "?page=99").status_code == 200  # past the end: the last page


def test_a_short_list_has_no_link_to_the_page(client, bob):
    game = GameFactory(rules=True)
    conversations(bob, game, 3)
    client.force_login(bob)

    page = client.get(reverse("oracle-chat", args=[game.slug])).content.decode()

    assert "Vos conversations (3)" in page and reverse("oracle-chat-conversations", args=[game.slug]) not in page


def reopen_queries(client, bob, turns) -> int:
    game = GameFactory(rules=True)
    ExtensionFactory(rules=True, game=game, name="Tempête", slug=f"{game.slug}-tempete")
    conversation = start_conversation(user=bob, game=game)
    for n in range(turns):
        question = create_question(game=game, text=f"Question {n} ?", user=bob, conversation=conversation)
        question.mark_done(answer=f"Réponse {n} [Tempête, p.2].", intent="rules", best_score=0.9, diagnostics={})
    client.force_login(bob)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])).status_code == 200
    return len(queries)


def test_a_long_conversation_reopens_in_as_many_queries_as_a_short_one(client, bob):
    assert reopen_queries(client, bob, 25) == reopen_queries(client, bob, 3)
