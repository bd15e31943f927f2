"""« Arrêter » while the model is silent: the stream is read on a thread of its own
(rag.llm.cancel.stream_in_background), so the stop is seen within its poll, and every backend
ends its blocked read at once — the remote CLI killed over SSH, the local CLI killed, the HTTP
response hung up — without a fall-back model or a retry starting after it."""

import threading
import time
import uuid

import pytest

from rag.llm.base import AnswerStopped
from rag.llm.cancel import stream_in_background
from rag.llm.fallback import WithFallback
from rag.llm.openai import OpenAIBackend, OpenAIConfig
from tests.rag.llm.conftest import remote_processes
from tests.support.chat_completions import start_chat_server

pytestmark = pytest.mark.slow
POLL_S = 0.3


def stopper(condition, after_s: float = 1.0):
    """A `stopped()` that turns True `after_s` after `condition()` first held (the call is then
    under way and silent), and the moment it did."""
    seen = {}

    def stopped() -> bool:
        now = time.monotonic()
        if "met" not in seen and condition():
            seen["met"] = now
        if "met" in seen and now - seen["met"] >= after_s:
            seen.setdefault("at", now)
            return True
        return False

    return stopped, seen


def read_until_stopped(start, stopped, seen) -> float:
    """Seconds from the stop to `AnswerStopped` reaching the caller."""
    with pytest.raises(AnswerStopped):
        for _ in stream_in_background(start, stopped=stopped, poll_s=POLL_S):
            pass
    return time.monotonic() - seen["at"]


def wait_until(condition, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        time.sleep(0.1)
    return condition()


def readers_alive() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "llm-stream"]


@pytest.fixture
def no_reader_left():
    assert wait_until(lambda: not readers_alive()), "a reader of an earlier test is still blocked"


def assert_read_ended() -> None:
    """The backend's blocked read really ended (not merely abandoned): its reader thread is gone
    soon after the stop, while the model is still silent."""
    assert wait_until(lambda: not readers_alive(), 5.0), "the backend's read went on after the stop"


@pytest.mark.parametrize("kind", ["claude-ssh", "claude-cli"])
def test_a_stop_while_the_claude_cli_is_silent_kills_it_and_starts_no_fallback(kind, ssh_backend, cli_backend,
                                                                               messages_api, no_reader_left):
    messages_api.mode = "hang"  # the API opens the message, then only pings: the CLI prints nothing
    marker = f"oracle-silent-{uuid.uuid4().hex}"
    backend = WithFallback(ssh_backend() if kind == "claude-ssh" else cli_backend(), fallback_model="haiku",
                           timeout_s=120, fallback_timeout_s=120)
    stopped, seen = stopper(lambda: messages_api.conversation_requests())

    took = read_until_stopped(lambda: backend.stream(f"Système {marker}", "Question", model="sonnet", timeout=120),
                              stopped, seen)

    assert took < POLL_S + 0.5
    assert_read_ended()
    assert wait_until(lambda: not remote_processes(marker)), remote_processes(marker)
    time.sleep(1.0)
    assert [r.model[:13] for r in messages_api.conversation_requests()] == ["claude-sonnet"]  # no fall-back call


@pytest.fixture
def chat():
    state, server = start_chat_server()
    yield state
    server.shutdown()
    server.server_close()


def test_a_stop_while_the_openai_server_is_silent_hangs_up_and_starts_no_fallback(chat, no_reader_left):
    release = threading.Event()

    def first_words_then_silence(body):
        yield "Selon "
        release.wait(60)  # the model stalls (a long page image, a busy GPU)
        yield "le livret."

    chat.reply = first_words_then_silence
    chat.models = ["gemma3:4b", "small:1b"]
    backend = WithFallback(OpenAIBackend(OpenAIConfig(base_url=chat.url, model="gemma3:4b", tier_models={"haiku": "small:1b"})),
                           fallback_model="haiku", timeout_s=120)
    received = []
    stopped, seen = stopper(lambda: received, after_s=0.5)

    def start():
        for text in backend.stream("Système", "Question", model="sonnet", timeout=120):
            received.append(text)
            yield text

    try:
        took = read_until_stopped(start, stopped, seen)
        assert took < POLL_S + 0.5
        assert received == ["Selon "]
        assert_read_ended()
        time.sleep(1.0)
        assert [r["model"] for r in chat.requests] == ["gemma3:4b"]  # no fall-back call
    finally:
        release.set()
