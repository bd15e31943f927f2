"""Background answering (questions.ask_flow.background.start_answering): more questions than
ASK_MAX_CONCURRENT_ANSWERS wait their turn instead of failing, are polled as pending and
vouched for meanwhile, and every one is answered in the end."""

import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from questions import recovery
from questions.ask_flow import background
from questions.models import Question
from questions.ask_flow.background import start_answering
from questions.ask_flow.intake import new_question, save_question
from tests.factories import ExtensionFactory, GameFactory
from tests.rag.corpus import create_chunk_rows

pytestmark = pytest.mark.django_db(transaction=True)  # answers are written by pool threads


@pytest.fixture
def game():
    game = GameFactory(name="Course Folle", slug="course-folle")
    create_chunk_rows(game, ExtensionFactory(game=game, name="Heavy Rain", slug="heavy-rain"))
    return game


class Listener:
    def __init__(self):
        self.events = []

    def __call__(self, name, data):
        self.events.append(name)


@pytest.fixture
def watched(monkeypatch):
    """Counts the answers being generated at once; `gate` holds them until it is set."""
    state = {"now": 0, "most": 0, "gate": threading.Event(), "lock": threading.Lock()}
    state["gate"].set()
    real = background.answer_question

    def answer_question(question_id, emit):
        with state["lock"]:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        try:
            state["gate"].wait(60)
            real(question_id, emit)
        finally:
            with state["lock"]:
                state["now"] -= 1

    monkeypatch.setattr(background, "answer_question", answer_question)
    return state


def stored(**asked) -> Question:
    """A question as the ask service leaves it: saved before it is answered."""
    unsaved = new_question(**asked)
    save_question(*unsaved)
    return unsaved[0]


def wait_saved(question_id, timeout=30):
    deadline = time.monotonic() + timeout
    while not Question.objects.filter(pk=question_id).exists():
        assert time.monotonic() < deadline, "the question was never saved"
        time.sleep(0.05)


def test_more_questions_than_answer_threads_wait_their_turn_and_all_get_answered(game, watched, settings, bob):
    settings.ASK_MAX_CONCURRENT_ANSWERS = 2
    asked = []
    for n in range(6):
        question = stored(game=game, text=f"Which tyres can a player choose? ({n})", user=bob)
        listener = Listener()
        asked.append((question.pk, listener, start_answering(question.pk, listener)))

    for _, _, finished in asked:
        finished.result(timeout=120)

    assert watched["most"] <= 2
    for question_id, listener, _ in asked:
        question = Question.objects.get(pk=question_id)
        assert question.status == Question.Status.DONE and question.answer
        assert listener.events[-1] == "done" and "error" not in listener.events


def test_a_question_queued_behind_a_busy_answer_is_pending_and_vouched_for(game, watched, settings, client, bob):
    settings.ASK_MAX_CONCURRENT_ANSWERS = 1
    settings.ASK_STALE_AFTER_S = 300
    watched["gate"].clear()  # the first answer holds the only answer thread
    first = stored(game=game, text="Which tyres can a player choose?", user=bob)
    second = stored(game=game, text="What happens in the rain?", user=bob)
    finished = [start_answering(q.pk, Listener()) for q in (first, second)]
    wait_saved(second.pk)

    client.force_login(bob)
    assert client.get(f"/api/ask/{second.pk}").status_code == 202  # waiting, not failed
    Question.objects.filter(pk=second.pk).update(created_at=timezone.now() - timedelta(seconds=900))
    assert recovery.fail_stale_questions() == 0  # this process vouches for its queued question

    watched["gate"].set()
    for future in finished:
        future.result(timeout=120)
    assert client.get(f"/api/ask/{second.pk}").json()["status"] == "done"
    assert watched["most"] == 1
