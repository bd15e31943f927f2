"""« Arrêter » pressed while the model is silent (it reads a page image, the network hangs):
the answer stops within CHECK_EVERY_S, not at ASK_ANSWER_TIMEOUT_S; the text streamed so far
is stored marked stopped, as for a stop between tokens; the HTTP response is hung up and no
fall-back call starts. Through a real OpenAI-compatible stand-in (LLM_BACKEND=openai)."""

import threading
import time

import pytest

from questions.ask_flow.answering import CHECK_EVERY_S
from questions.ask_flow.flow import answer_question
from questions.ask_flow.intake import create_question
from questions.ask_flow.stop import request_stop
from questions.models import Question
from rag.prompts import SYSTEM_PROMPT
from tests.questions.test_answer_service import game_and_extension  # noqa: F401
from tests.support.chat_completions import chat_backend

pytestmark = pytest.mark.django_db
STALL_S = 8.0


@pytest.fixture
def stalling_chat(settings):
    """The answer model writes two words, then stalls; every other call answers at once."""
    release = threading.Event()

    def reply(body):
        if body["messages"][0]["content"] != SYSTEM_PROMPT:
            yield "rules"
            return
        yield "Selon "
        yield "les "
        release.wait(STALL_S)
        yield "règles."

    with chat_backend(settings, LLM_MODEL_HAIKU="small:1b", LLM_FALLBACK_MODEL="haiku", ASK_ANSWER_TIMEOUT_S=60) as state:
        state.reply, state.models = reply, ["gemma3:4b", "small:1b"]
        yield state
        release.set()


def test_a_stop_while_the_model_is_silent_ends_the_answer_at_once(stalling_chat, game_and_extension):  # noqa: F811
    game, extension = game_and_extension
    question = create_question(game=game, text="Combien de cartes ?", extensions=[extension])
    events, pressed = [], {}

    def emit(name, data):
        events.append((name, data))
        if name == "token" and data.get("text") == "les ":  # the model then goes silent
            request_stop(question.pk)
            pressed["at"] = time.monotonic()

    answer_question(question.pk, emit)
    took = time.monotonic() - pressed["at"]

    question.refresh_from_db()
    assert took < CHECK_EVERY_S + 1.0, f"the stop took {took:.1f} s (the model stalls {STALL_S} s)"
    assert question.status == Question.Status.DONE and question.stopped
    assert question.answer == "Selon les "
    assert events[-1][0] == "done" and events[-1][1]["fullAnswer"] == "Selon les "
    time.sleep(1.0)
    answers = [b["model"] for b in stalling_chat.requests if b["messages"][0]["content"] == SYSTEM_PROMPT]
    assert answers == ["gemma3:4b"]  # neither a fall-back model nor a retry after the stop
