"""The chat page and its htmx views: a question asked in the page lands in the current
conversation (started on the first question), its turn listens to the answer's events, a
reload shows the conversation's turns, and the turn's actions (stop, regenerate, feedback,
polling fallback) do what a player sees them do."""

import asyncio
import threading

import pytest
from django.urls import reverse

from games.models import Game
from questions.ask_flow.intake import create_question
from questions.ask_flow.stop import StopSignal, forget_stop
from questions.conversations import start_conversation
from questions.models import Conversation, Question
from runtime import broadcast
from tests.factories import ExtensionFactory, GameFactory, UserFactory


@pytest.fixture
def started(monkeypatch):
    """The questions the chat started answering (the answer itself is not run here)."""
    ids = []
    monkeypatch.setattr("questions.views.start_answering", lambda question_id, *a, **k: ids.append(question_id))
    return ids


def header(response) -> str:
    return response.content.decode().split('id="booklet-choice"')[1].split("</fieldset>")[0]


def ask(client, game, text, **fields):
    return client.post(reverse("oracle-chat-ask", args=[game.slug]), {"question": text, **fields}, HTTP_HX_REQUEST="true")


def answered(question, answer="Sept cartes [Heat, p.2]."):
    question.mark_done(answer=answer, intent="rules", best_score=0.9, diagnostics={})
    return question


def test_chat_page_ticks_only_the_booklets_of_the_link(client, bob):
    game = GameFactory(rules=True, name="Heat")
    ticked, unticked = ExtensionFactory(rules=True, game=game), ExtensionFactory(rules=True, game=game)
    foreign = ExtensionFactory()
    client.force_login(bob)

    response = client.get(reverse("oracle-chat", args=[game.slug]), {"ext": [ticked.pk, foreign.pk]})

    page = response.content.decode()
    assert 'maxlength="500"' in page and "Nouvelle conversation" in page
    assert f'hx-post="{reverse("oracle-chat-ask", args=[game.slug])}"' in page
    assert "/api/ask/stream" not in page
    assert f'value="{ticked.pk}" checked' in header(response)
    assert f'value="{unticked.pk}">' in header(response)
    assert str(foreign.pk) not in header(response)
    assert "Tapez @ pour citer une carte" not in page  # not a card game


def test_the_at_hint_only_for_a_card_game(client, bob):
    game = GameFactory(rules=True, card_game=Game.CardGame.MTG)
    client.force_login(bob)
    assert "Tapez @ pour citer une carte" in client.get(reverse("oracle-chat", args=[game.slug])).content.decode()


def test_chat_page_without_a_choice_ticks_every_booklet_of_the_game(client, bob):
    game = GameFactory(rules=True, name="Les Aéronautes")
    storm, faq = ExtensionFactory(rules=True, game=game, name="Storm Front"), ExtensionFactory(rules=True, game=game, name="FAQ", kind="faq")
    client.force_login(bob)
    response = client.get(reverse("oracle-chat", args=[game.slug]))
    assert f'value="{storm.pk}" checked' in header(response) and f'value="{faq.pk}" checked' in header(response)
    assert reverse("oracle-game-changes", args=[game.slug]) in header(response)


def test_the_first_question_starts_a_conversation_and_pushes_its_url(client, bob, started):
    game = GameFactory(rules=True, name="Heat")
    storm, faq = ExtensionFactory(rules=True, game=game), ExtensionFactory(rules=True, game=game)
    client.force_login(bob)

    response = ask(client, game, "  Combien de cartes pioche-t-on ?  ", booklet=[storm.pk],
                   card_mentions='["Lightning Bolt"]')

    assert response.status_code == 200
    conversation = Conversation.objects.get()
    question = Question.objects.get()
    assert (conversation.user, conversation.game, conversation.title) == (bob, game, "Combien de cartes pioche-t-on ?")
    assert not conversation.every_booklet and list(conversation.extensions.all()) == [storm]
    assert question.conversation == conversation and question.history == []
    assert list(question.extensions.all()) == [storm] and question.card_mentions == ["Lightning Bolt"]
    assert started == [question.pk]
    assert response["HX-Push-Url"] == reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])
    body = response.content.decode()
    assert f'sse-connect="{reverse("oracle-chat-events", args=[game.slug, question.pk])}"' in body
    assert 'sse-swap="token"' in body and 'sse-close="done"' in body
    assert f'id="conversation-id" value="{conversation.pk}" hx-swap-oob="true"' in body


def test_the_next_question_carries_the_conversations_history_and_cards(client, bob, started):
    game = GameFactory(rules=True)
    client.force_login(bob)
    ask(client, game, "Que fait Lightning Bolt ?", card_mentions='["Lightning Bolt"]')
    conversation = Conversation.objects.get()
    answered(Question.objects.get(), "Trois blessures.")

    response = ask(client, game, "Et au premier tour ?", conversation=conversation.pk)

    second = Question.objects.order_by("-created_at").first()
    assert second.conversation == conversation and Conversation.objects.count() == 1
    assert second.history == [{"question": "Que fait Lightning Bolt ?", "answer": "Trois blessures."}]
    assert second.sticky_card_mentions == ["Lightning Bolt"]
    assert conversation.every_booklet  # every booklet ticked (none here): all of them, present and future
    assert "vos 2 derniers échanges" in response.content.decode()  # this one too, once answered


def test_a_reload_shows_the_conversations_turns_and_the_list_of_conversations(client, bob, started):
    game = GameFactory(rules=True)
    older = start_conversation(user=bob, game=game, title="Ancienne")
    conversation = start_conversation(user=bob, game=game, title="Pioche")
    answered(create_question(game=game, text="Combien de cartes ?", user=bob, conversation=conversation))
    start_conversation(user=UserFactory(), game=game, title="Celle d'un autre")
    client.force_login(bob)

    page = client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])).content.decode()

    assert "Combien de cartes ?" in page and "Sept cartes" in page and 'data-state="done"' in page
    assert page.index(">Pioche<") < page.index(">Ancienne<")  # newest first
    assert "Celle d'un autre" not in page
    assert f'id="conversation-id" value="{conversation.pk}"' in page
    assert "↺ 1/5 : l&#x27;Oracle relit le dernier échange" in page  # « ↺ 1/5 » in words
    assert client.get(reverse("oracle-chat-conversation", args=[game.slug, older.pk])).status_code == 200


def test_another_players_conversation_is_404(client, bob):
    game = GameFactory(rules=True)
    theirs = start_conversation(user=UserFactory(), game=game)
    client.force_login(bob)
    assert client.get(reverse("oracle-chat-conversation", args=[game.slug, theirs.pk])).status_code == 404
    response = ask(client, game, "Intrus ?", conversation=theirs.pk)
    assert response.status_code == 404 and not Question.objects.exists()


def test_feedback_is_stored(client, bob):
    game = GameFactory(rules=True)
    question = answered(create_question(game=game, text="Q ?", user=bob, conversation=start_conversation(user=bob, game=game)))
    client.force_login(bob)
    url = reverse("oracle-chat-feedback", args=[game.slug, question.pk])

    assert client.post(url, {"rating": "-1"}).status_code == 200
    response = client.post(url, {"rating": "", "comment": "La page 4 le dit autrement."})

    question.refresh_from_db()
    assert question.rating == -1 and question.feedback_comment == "La page 4 le dit autrement."
    assert "Merci pour votre avis." in response.content.decode()


def test_stop_signals_the_answering_thread(client, bob):
    game = GameFactory(rules=True)
    question = create_question(game=game, text="Long ?", user=bob)
    client.force_login(bob)
    assert not StopSignal(question.pk).stopped()
    assert client.post(reverse("oracle-chat-stop", args=[game.slug, question.pk])).status_code == 204
    assert StopSignal(question.pk).stopped()
    forget_stop(question.pk)


def test_a_stopped_answer_is_shown_interrupted(client, bob):
    game = GameFactory(rules=True)
    conversation = start_conversation(user=bob, game=game)
    question = answered(create_question(game=game, text="Long ?", user=bob, conversation=conversation), "Le début")
    Question.objects.filter(pk=question.pk).update(stopped=True)
    client.force_login(bob)
    page = client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])).content.decode()
    assert "Réponse interrompue" in page and "Le début" in page


def test_a_reopened_deck_answer_has_its_verdict_and_export_buttons(client, bob):
    game = GameFactory(rules=True, card_game=Game.CardGame.MTG)
    conversation = start_conversation(user=bob, game=game)
    exports = {"text": "4 Shock\n", "arena": "Deck\n4 Shock (DOM) 1\n", "mtgo_dek": '<Deck>\n  <Cards Name="Shock" />\n</Deck>\n'}
    question = create_question(game=game, text="Un deck rouge ?", user=bob, conversation=conversation)
    question.mark_done(answer="4× [[card:Shock]]", intent="deckbuilding", best_score=None, diagnostics={"deck": {
        "validation": {"valid": False, "totals": {"main": 4}, "issues": ["60 cartes attendues"], "warnings": []},
        "exports": exports}})
    client.force_login(bob)
    page = client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])).content.decode()
    assert "Liste à corriger (4)" in page and "<li>60 cartes attendues</li>" in page
    assert 'data-copy="Deck\n4 Shock (DOM) 1\n">Copier pour Arena</button>' in page
    assert 'data-copy="4 Shock\n">Copier la liste (texte)</button>' in page
    assert 'data-download="&lt;Deck&gt;\n  &lt;Cards Name=&quot;Shock&quot; /&gt;\n&lt;/Deck&gt;\n"' in page


def test_regenerate_asks_the_same_question_again_with_the_history_before_it(client, bob, started):
    game = GameFactory(rules=True)
    conversation = start_conversation(user=bob, game=game)
    first = answered(create_question(game=game, text="Un ?", user=bob, conversation=conversation), "1")
    second = answered(create_question(game=game, text="Deux ?", user=bob, conversation=conversation, history=[]), "2")
    client.force_login(bob)

    response = client.post(reverse("oracle-chat-regenerate", args=[game.slug, second.pk]))

    again = Question.objects.get(replaces=second)
    assert again.text == "Deux ?" and again.history == [{"question": first.text, "answer": "1"}]
    assert started == [again.pk]
    assert 'sse-connect' in response.content.decode()
    page = client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])).content.decode()
    assert page.count('class="question-text">Deux ?<') == 1  # the replaced turn is gone


def test_a_regenerated_earlier_turn_keeps_its_place_on_reload_and_in_the_next_questions_history(client, bob, started):
    game = GameFactory(rules=True)
    conversation = start_conversation(user=bob, game=game)
    first, second, third = (answered(create_question(game=game, text=text, user=bob, conversation=conversation), answer)
                            for text, answer in [("Un ?", "1"), ("Deux ?", "2"), ("Trois ?", "3")])  # fmt: skip
    client.force_login(bob)

    client.post(reverse("oracle-chat-regenerate", args=[game.slug, first.pk]))
    answered(Question.objects.get(replaces=first), "Un, mieux dit")
    page = client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])).content.decode()
    ask(client, game, "Quatre ?", conversation=str(conversation.pk))

    shown = [part.split("<")[0] for part in page.split('class="question-text">')[1:]]
    assert shown == ["Un ?", "Deux ?", "Trois ?"]
    assert page.index("Un, mieux dit") < page.index('class="question-text">Deux ?<')
    asked = Question.objects.get(text="Quatre ?")
    assert [turn["answer"] for turn in asked.history] == ["Un, mieux dit", "2", "3"]


def test_a_second_click_on_regenerate_gets_the_new_answer_under_way_not_another_one(client, bob, settings, started):
    settings.RATE_LIMIT_ASK_USER, settings.RATE_LIMIT_ASK_IP = "1/m", ""  # the second click is no question
    game = GameFactory(rules=True)
    conversation = start_conversation(user=bob, game=game)
    first = answered(create_question(game=game, text="Un ?", user=bob, conversation=conversation), "1")
    client.force_login(bob)
    url = reverse("oracle-chat-regenerate", args=[game.slug, first.pk])

    clicks = [client.post(url), client.post(url)]

    again = Question.objects.get(replaces=first)
    assert [click.status_code for click in clicks] == [200, 200] and started == [again.pk]
    for click in clicks:  # both show the one answer being written, listening to its events
        assert f'id="turn-{again.pk}"' in click.content.decode() and "sse-connect" in click.content.decode()
    assert Question.objects.count() == 2
    page = client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])).content.decode()
    assert page.count('class="question-text">Un ?<') == 1


def test_the_polling_fallback_asks_again_then_gives_up_or_shows_the_answer(client, bob):
    game = GameFactory(rules=True)
    question = create_question(game=game, text="Q ?", user=bob)
    client.force_login(bob)
    url = reverse("oracle-chat-turn", args=[game.slug, question.pk])

    pending = client.get(url, {"try": 3}).content.decode()
    assert f'hx-get="{url}?try=4"' in pending and 'hx-trigger="every 3s"' in pending
    assert "L'Oracle finalise hors-ligne…" in pending
    given_up = client.get(url, {"try": 15}).content.decode()
    assert "pas pu terminer sa réponse" in given_up and "hx-get" not in given_up
    huge = client.get(url, {"try": "9" * 4300})  # parsed, but its next poll's URL could not be written: a 500
    assert huge.status_code == 200 and "pas pu terminer sa réponse" in huge.content.decode()
    answered(question)
    done = client.get(url, {"try": 5}).content.decode()
    assert 'data-state="done"' in done and 'class="citation' in done


def relayed(question, once_listening) -> str:
    """What the chat's event relay sends for `question`, `once_listening()` run in a thread as
    soon as it listens (as the answer pool publishes)."""
    from questions.chat_stream import relay

    async def collect():
        out = []
        async for chunk in relay(question.pk, heartbeat_s=5):
            out.append(chunk)
            if chunk.startswith(": listening"):
                threading.Thread(target=once_listening).start()
        return "".join(out)

    return asyncio.run(collect())


@pytest.mark.django_db(transaction=True)
def test_the_event_relay_renders_each_event_as_a_partial(bob):
    game = GameFactory(rules=True, name="Heat")
    question = create_question(game=game, text="Q ?", user=bob)

    def publish():
        group = broadcast.answer_group(question.pk)
        broadcast.publish(group, "phase", {"label": "L'Oracle plonge <dans> les livrets…"})
        broadcast.publish(group, "token", {"text": "Sept <b>cartes</b>"})
        answered(Question.objects.get(pk=question.pk), "Sept cartes [Heat, p.2].")
        broadcast.publish(group, "done", {"fullAnswer": "Sept cartes"})

    stream = relayed(question, once_listening=publish)

    assert "event: phase\ndata: L&#x27;Oracle plonge &lt;dans&gt; les livrets…\n\n" in stream
    assert "event: token\ndata: <span>Sept &lt;b&gt;cartes&lt;/b&gt;</span>\n\n" in stream
    done = stream.split("event: done\n", 1)[1]
    assert 'data-state="done"' in done and "Heat, p.2" in done


@pytest.mark.django_db(transaction=True)
def test_the_event_relay_sends_a_stored_answer_at_once(bob):
    game = GameFactory(rules=True)
    question = answered(create_question(game=game, text="Q ?", user=bob))
    from questions.chat_stream import relay

    async def collect():
        return [chunk async for chunk in relay(question.pk, heartbeat_s=5)]

    chunks = asyncio.run(collect())
    assert len(chunks) == 1 and chunks[0].startswith("event: done\n")


@pytest.mark.django_db(transaction=True)
def test_the_event_relay_ends_when_the_question_is_deleted_while_it_is_answered(bob):
    """The player deletes the conversation (or an admin the game) while an answer streams:
    the stream once died without a `done`, the page fell back to polling a 404 and its ask
    button stayed disabled until a reload. It now ends with a notice in the turn's place."""
    game = GameFactory(rules=True)
    question = create_question(game=game, text="Q ?", user=bob)

    def delete_then_finish():
        Question.objects.filter(pk=question.pk).delete()
        broadcast.publish(broadcast.answer_group(question.pk), "error", {"message": "interrompue"})

    stream = relayed(question, once_listening=delete_then_finish)

    done = stream.split("event: done\n", 1)[1]
    assert 'data-state="error"' in done and "Cette question a été supprimée." in done


def test_chat_page_asks_anonymous_visitors_to_log_in(client, db):
    game = GameFactory(rules=True)
    response = client.get(reverse("oracle-chat", args=[game.slug]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("oracle-login"))


def test_chat_page_is_open_to_anonymous_visitors_when_the_setting_allows(client, db, settings):
    settings.ASK_ALLOW_ANONYMOUS = True
    game = GameFactory(rules=True)
    assert client.get(reverse("oracle-chat", args=[game.slug])).status_code == 200


def test_chat_page_of_unknown_game_is_404(client, bob):
    client.force_login(bob)
    assert client.get(reverse("oracle-chat", args=["nope"])).status_code == 404


def test_the_empty_chat_suggests_questions_from_the_games_own_headings(client, bob):
    from django.utils.html import escape

    from games.suggestions import forget_suggestions, suggested_questions
    from tests.factories import ChunkFactory

    game = GameFactory(rules=True, name="Secret Hitler", language="en")
    paths = ["GAMEPLAY"] + ["GAMEPLAY > ELECTION"] * 8 + ["GAMEPLAY > LEGISLATIVE SESSION"] * 6 + ["SETUP"] * 3
    for ordinal, path in enumerate(paths):
        ChunkFactory(game=game, ordinal=ordinal, hierarchy_path=path, text="The Election comes before the Legislative Session.")
    forget_suggestions()
    client.force_login(bob)

    page = client.get(reverse("oracle-chat", args=[game.slug]), HTTP_ACCEPT_LANGUAGE="en").content.decode()

    expected = suggested_questions(game, language="en")
    assert expected and all(f'data-question="{escape(text)}"' in page for text in expected)
    assert 'placeholder="E.g.: ' in page
    # the same English rulebook on a French page: French questions, a French example
    page = client.get(reverse("oracle-chat", args=[game.slug]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert f'data-question="{escape("Comment met-on le jeu en place ?")}"' in page
    assert 'placeholder="Ex. : ' in page and "How do I" not in page
    forget_suggestions()


@pytest.mark.django_db(transaction=True)
def test_a_late_listener_gets_the_text_streamed_before_it_came_then_the_rest_once(bob):
    """A reload while the answer streams: the relay starts with what was already written."""
    from questions.ask_flow.background import publishing
    from questions.chat_stream import relay

    game = GameFactory(rules=True, name="Heat")
    question = create_question(game=game, text="Q ?", user=bob)
    emit = publishing(question.pk)
    emit("phase", {"label": "L'Oracle rédige sa réponse"})
    emit("token", {"text": "Sept "})
    emit("token", {"text": "cartes"})

    async def collect():
        out = []
        async for chunk in relay(question.pk, heartbeat_s=5):
            out.append(chunk)
            if chunk.startswith(": listening"):
                threading.Thread(target=rest).start()
        return "".join(out)

    def rest():
        emit("token", {"text": " en tout."})
        answered(Question.objects.get(pk=question.pk), "Sept cartes en tout.")
        emit("done", {"fullAnswer": "Sept cartes en tout."})

    stream = asyncio.run(collect())

    tokens = [block.split("data: ", 1)[1] for block in stream.split("\n\n") if block.startswith("event: token")]
    assert tokens[0].startswith("<span>Sept cartes")  # the text written before it listened
    assert "".join(tokens).replace("</span><span>", "") == "<span>Sept cartes en tout.</span>"  # nothing twice
    assert "event: done" in stream


def test_the_chat_in_english(client, bob):
    game = GameFactory(rules=True, card_game=Game.CardGame.MTG)
    conversation = start_conversation(user=bob, game=game, title="T")
    answered(create_question(game=game, text="Q ?", user=bob, conversation=conversation), "A")
    client.force_login(bob)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("oracle-chat-conversation", args=[game.slug, conversation.pk])).content.decode()
    for text in ["New conversation", "Your conversations (1)", "Copy", "Regenerate", "Helpful", "Not helpful",
                 "Type @ to cite a card.", "the Oracle rereads the last exchange"]:
        assert text in page, text


def test_an_empty_or_too_long_question_is_refused_with_a_reason(client, bob, started):
    game = GameFactory(rules=True)
    client.force_login(bob)
    empty = ask(client, game, "   ")
    too_long = ask(client, game, "x" * 501)
    bad_cards = ask(client, game, "Q ?", card_mentions="[1, 2]")
    nested_cards = ask(client, game, "Q ?", card_mentions="[" * 5000)  # json.loads: RecursionError, once a 500
    assert (empty.status_code, too_long.status_code, bad_cards.status_code, nested_cards.status_code) == (400, 400, 400, 400)
    assert "Écrivez d'abord votre question." in empty.content.decode()
    assert "500 caractères" in too_long.content.decode()
    assert not Question.objects.exists() and not Conversation.objects.exists() and started == []
