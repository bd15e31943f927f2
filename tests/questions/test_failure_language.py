"""A failed answer's message is read in the reader's language, whatever language the process
that failed it ran under: the recovery sweep (the site's default, French) or an answering
thread (the asker's). The server stores its own French msgid, the page and the API translate it."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils.html import escape
from django.utils import timezone, translation

from questions import recovery
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from questions.conversations import start_conversation
from questions.models import Question
from runtime import components
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

INTERRUPTED_FR = "La réponse a été interrompue (le serveur a redémarré). Posez la question à nouveau."
INTERRUPTED_EN = "The answer was interrupted (the server restarted). Ask again."


def interrupted_question(user, settings):
    """A question its process left pending, failed by the sweep a restarted process runs."""
    game = GameFactory(rules=True)
    conversation = start_conversation(user=user, game=game, title="Qui commence ?")
    question = create_question(game=game, text="Qui commence ?", user=user, conversation=conversation)
    long_ago = timezone.now() - timedelta(seconds=settings.ASK_STALE_AFTER_S + 60)
    Question.objects.filter(pk=question.pk).update(created_at=long_ago)
    assert recovery.fail_stale_questions() == 1
    return question


def chat_page(client, question, language) -> str:
    url = reverse("oracle-chat-conversation", args=[question.game.slug, question.conversation_id])
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


def test_an_answer_lost_to_a_restart_is_told_in_the_pages_language(client, bob, settings):
    question = interrupted_question(bob, settings)
    client.force_login(bob)

    english, french = chat_page(client, question, "en"), chat_page(client, question, "fr")

    assert INTERRUPTED_EN in english and "interrompue" not in english
    assert escape(INTERRUPTED_FR) in french


def test_polling_an_answer_lost_to_a_restart_gets_the_error_in_the_clients_language(client, bob, settings):
    question = interrupted_question(bob, settings)
    client.force_login(bob)

    english = client.get(f"/api/ask/{question.pk}", HTTP_ACCEPT_LANGUAGE="en").json()
    french = client.get(f"/api/ask/{question.pk}", HTTP_ACCEPT_LANGUAGE="fr").json()

    assert (english["status"], english["error"]) == ("error", INTERRUPTED_EN)
    assert french["error"] == INTERRUPTED_FR
    turns = client.get(f"/api/conversations/{question.conversation_id}/questions", HTTP_ACCEPT_LANGUAGE="en").json()
    assert turns["items"][0]["error"] == INTERRUPTED_EN


def test_a_failure_met_while_answering_an_english_page_reads_in_french_on_a_french_one(client, bob, monkeypatch):
    def broken_store():
        raise RuntimeError("index unreadable")

    monkeypatch.setattr(components, "vector_store", broken_store)
    game = GameFactory(rules=True)
    conversation = start_conversation(user=bob, game=game, title="Who starts?")
    question = create_question(game=game, text="Who starts?", user=bob, conversation=conversation)
    events = []
    with translation.override("en"):  # the answering thread runs under the asker's language
        answer_question(question.pk, lambda name, data: events.append((name, data)))
    client.force_login(bob)

    assert events[-1][1]["message"] == "The Oracle could not answer this question. Try again in a moment."
    assert escape("L'Oracle n'a pas pu répondre à cette question.") in chat_page(client, question, "fr")
    assert "The Oracle could not answer this question." in chat_page(client, question, "en")


def test_a_message_that_is_no_msgid_is_shown_as_stored(client, bob):
    game = GameFactory(rules=True)
    conversation = start_conversation(user=bob, game=game, title="Qui commence ?")
    question = create_question(game=game, text="Qui commence ?", user=bob, conversation=conversation)
    question.mark_failed("L'Oracle n'a pas pu répondre : délai dépassé")
    client.force_login(bob)

    assert escape("L'Oracle n'a pas pu répondre : délai dépassé") in chat_page(client, question, "en")
