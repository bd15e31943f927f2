"""What the player reads when the LLM fails: one French sentence by kind of failure, never the
error's own text (the CLI's stderr and Node stack trace, an SSH address, `claude /login`),
which goes to the log. Each failure is met for real: a stand-in CLI crashing, the real CLI not
logged in or silent over SSH, an SSH port nobody listens on, an OpenAI-compatible server down."""

import socket

import pytest

from questions.ask_flow.steps.answer_rules import llm_failed
from rag.llm.base import LLMError
from rag.llm.fallback import WithFallback
from rag.llm.openai import OpenAIBackend, OpenAIConfig

pytestmark = pytest.mark.slow

NODE_CRASH = """file:///usr/lib/node_modules/@anthropic-ai/claude-code/cli.js:1234
TypeError: Cannot read properties of undefined (reading 'content')
    at Rq1 (file:///usr/lib/node_modules/@anthropic-ai/claude-code/cli.js:1234:567)
Node.js v20.11.1
"""
RAW = ("TypeError", "file://", "Node.js", "Claude CLI", "SSH", "127.0.0.1", "claude /login", "/login", "exit status")


def failure_of(backend, **call) -> LLMError:
    with pytest.raises(LLMError) as caught:
        backend.complete("Système", "Question", model=call.pop("model", "haiku"), **call)
    return caught.value


def assert_plain(message: str, expected: str) -> None:
    assert message == expected
    assert not [raw for raw in RAW if raw in message], message


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_crashing_cli_says_the_model_could_not_answer(cli_backend, replay_cli):
    backend = WithFallback(cli_backend(executable=replay_cli([], exit_status=1, stderr=NODE_CRASH)), fallback_model="sonnet")
    error = failure_of(backend, timeout=20)
    assert "TypeError" in str(error)  # the details are still there, for the log
    assert_plain(llm_failed(error), "Le modèle de langage n'a pas pu répondre.")


def test_a_cli_not_logged_in_asks_an_admin_to_sign_in_again(ssh_backend, messages_api):
    error = failure_of(ssh_backend("none"), timeout=60)
    assert_plain(llm_failed(error),
                 "Le modèle de langage n'est plus connecté à son compte : un administrateur doit s'y reconnecter.")


def test_a_silent_model_says_it_did_not_answer_in_time(ssh_backend, messages_api):
    messages_api.mode = "hang"
    error = failure_of(ssh_backend(), timeout=5)
    assert_plain(llm_failed(error), "Le modèle de langage n'a pas répondu à temps.")


def test_an_unreachable_claude_host_says_the_service_is_unreachable(ssh_backend):
    error = failure_of(ssh_backend(ssh_overrides={"port": free_port(), "connect_timeout_s": 3}), timeout=10)
    assert_plain(llm_failed(error), "Le service du modèle de langage est injoignable pour le moment.")


def test_an_unreachable_openai_server_says_the_service_is_unreachable():
    backend = OpenAIBackend(OpenAIConfig(base_url=f"http://127.0.0.1:{free_port()}/v1", model="m", timeout_s=5))
    assert_plain(llm_failed(failure_of(backend, timeout=5)), "Le service du modèle de langage est injoignable pour le moment.")
