"""Timeouts end the remote CLI; the fall-back model answers when the primary cannot."""

import time
import uuid

import pytest

from rag.llm.base import LLMError, LLMTimeout
from rag.llm.fallback import WithFallback
from tests.rag.llm.conftest import remote_processes

pytestmark = pytest.mark.slow


def wait_until_gone(marker: str, seconds: float = 10.0) -> list[str]:
    end = time.monotonic() + seconds
    while (alive := remote_processes(marker)) and time.monotonic() < end:
        time.sleep(0.2)
    return alive


def test_timeout_closes_the_channel_and_ends_the_remote_cli(ssh_backend, messages_api):
    messages_api.mode = "hang"
    marker = f"oracle-hang-{uuid.uuid4().hex}"
    backend = ssh_backend()

    with pytest.raises(LLMTimeout):
        list(backend.stream(f"Système {marker}", "Question", model="haiku", timeout=15))

    assert messages_api.conversation_requests(), "the CLI never reached the API: the test proves nothing"
    assert wait_until_gone(marker) == []


def test_stopping_the_stream_early_ends_the_remote_cli(ssh_backend, messages_api):
    messages_api.mode = "slow"
    messages_api.answer = [f"mot{i} " for i in range(150)]  # 150 × 0.4 s: only a kill ends it within the wait
    marker = f"oracle-stop-{uuid.uuid4().hex}"
    stream = ssh_backend().stream(f"Système {marker}", "Question", model="haiku", timeout=120)

    next(stream)
    assert remote_processes(marker)
    stream.close()

    assert wait_until_gone(marker) == []


def test_fallback_model_answers_when_the_primary_times_out(ssh_backend, messages_api):
    messages_api.models_failing = {"claude-sonnet"}
    backend = WithFallback(ssh_backend(), fallback_model="haiku", timeout_s=60, fallback_timeout_s=60)

    answer = backend.complete("Système", "Question", model="sonnet", timeout=15)

    assert answer == "".join(messages_api.answer)
    models = [r.model for r in messages_api.conversation_requests()]
    assert models[0].startswith("claude-sonnet") and models[-1].startswith("claude-haiku")


def test_fallback_model_answers_when_the_primary_fails(ssh_backend, messages_api):
    messages_api.mode = "overloaded"
    backend = WithFallback(ssh_backend(), fallback_model="haiku", timeout_s=60, fallback_timeout_s=60)
    calls = []
    real_stream = backend.backend.stream

    def overloaded_then_normal(system, prompt, *, model, timeout, images):
        calls.append(model)
        if model == "haiku":
            messages_api.mode = "normal"
        return real_stream(system, prompt, model=model, timeout=timeout, images=images)

    backend.backend.stream = overloaded_then_normal

    assert backend.complete("Système", "Question", model="opus", timeout=60) == "".join(messages_api.answer)
    assert calls == ["opus", "haiku"]


def test_without_fallback_the_failure_reaches_the_caller(ssh_backend, messages_api):
    messages_api.mode = "overloaded"
    backend = WithFallback(ssh_backend(), fallback_model="", timeout_s=60)

    with pytest.raises(LLMError, match="529|Overloaded"):
        backend.complete("Système", "Question", model="opus", timeout=60)
