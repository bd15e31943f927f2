"""A question's conversation: started unsaved with the first question and stored with it;
a follow-up takes the conversation's booklets, last turns and kept cards."""

import pytest
from django.http import Http404

from questions.ask_flow.intake import new_question, save_question
from questions.conversations import follow_up_in, new_conversation, start_conversation
from questions.models import Conversation
from tests.factories import ExtensionFactory, GameFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_first_question_stores_the_conversation_it_starts_with_the_chosen_booklets():
    game = GameFactory()
    chosen = ExtensionFactory(game=game)
    ExtensionFactory(game=game)
    user = UserFactory()
    conversation = new_conversation(user=user, game=game, every_booklet=False, title="Qui commence ?")
    question, extensions = new_question(game=game, text="Qui commence ?", extensions=[chosen], user=user,
                                        conversation=conversation)  # fmt: skip
    assert not Conversation.objects.exists()  # nothing written before the save pool runs

    save_question(question, extensions)

    stored = Conversation.objects.get(pk=conversation.pk)
    assert list(stored.extensions.all()) == [chosen] and not stored.every_booklet
    assert list(stored.turns()) == [question]


def test_a_follow_up_takes_the_last_turns_booklets_and_kept_cards():
    game = GameFactory()
    chosen = ExtensionFactory(game=game)
    user = UserFactory()
    conversation = start_conversation(user=user, game=game, extensions=[chosen])
    first, _ = new_question(game=game, text="Que fait @Opt ?", card_mentions=["Opt"], user=user, conversation=conversation)
    save_question(first, [chosen])
    first.mark_done(answer="Regard 1, pioche 1.", intent="rules", best_score=0.9, diagnostics={})

    follow_up = follow_up_in(user, conversation.pk)

    assert follow_up.history == [{"question": "Que fait @Opt ?", "answer": "Regard 1, pioche 1."}]
    assert follow_up.extensions == [chosen] and follow_up.sticky == ["Opt"]


def test_nobody_but_the_owner_follows_up_staff_included():
    conversation = start_conversation(user=UserFactory(), game=GameFactory())
    for intruder in (UserFactory(), StaffFactory(), None):
        with pytest.raises(Http404):
            follow_up_in(intruder, conversation.pk)
    anonymous = start_conversation(user=None, game=GameFactory())
    assert follow_up_in(None, anonymous.pk).conversation == anonymous
    with pytest.raises(Http404):  # a player writes only into their own (tests/questions/test_anonymous_conversations.py)
        follow_up_in(UserFactory(), anonymous.pk)
