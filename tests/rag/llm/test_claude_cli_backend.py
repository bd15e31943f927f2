"""`claude-cli`: the real CLI as a local subprocess, same command and parsing as over SSH."""

import time
import uuid
from datetime import datetime, timezone

import pytest

from rag.llm.base import ClaudeQuotaError, LLMConfigError, LLMTimeout
from tests.rag.llm.conftest import remote_processes

pytestmark = pytest.mark.slow

PROMPT = "Combien de cartes « Boost » ? $(date) `id` \"x\" 'y'"


def test_local_cli_streams_the_answer_with_prompt_intact(cli_backend, messages_api):
    deltas = list(cli_backend().stream("Système « Oracle »", PROMPT, model="haiku", timeout=60))

    assert deltas == messages_api.answer
    (request,) = messages_api.conversation_requests()
    assert request.user_texts[-1] == PROMPT
    assert request.system_text.endswith("Système « Oracle »")


def test_local_cli_slow_caller_still_gets_the_whole_huge_answer(cli_backend, messages_api):
    messages_api.mode = "huge"
    messages_api.huge_deltas = 4000
    received = []

    for text in cli_backend().stream("Système", "Tout le livret.", model="haiku", timeout=180):
        received.append(text)
        time.sleep(0.002)

    assert len(received) == 4000 and received[-1].startswith("Ligne 3999 : ")


def test_local_cli_timeout_ends_the_process(cli_backend, messages_api):
    messages_api.mode = "hang"
    marker = f"oracle-local-hang-{uuid.uuid4().hex}"

    with pytest.raises(LLMTimeout):
        cli_backend().complete(f"Système {marker}", "Question", model="haiku", timeout=15)

    end = time.monotonic() + 10
    while remote_processes(marker) and time.monotonic() < end:
        time.sleep(0.2)
    assert remote_processes(marker) == []


def test_local_cli_subscription_quota(cli_backend, messages_api):
    messages_api.mode = "quota"
    with pytest.raises(ClaudeQuotaError) as caught:
        cli_backend("oauth").complete("Système", "Question", model="sonnet", timeout=60)
    assert caught.value.reset_at == datetime.fromtimestamp(1767225600, tz=timezone.utc)


def test_local_cli_not_logged_in(cli_backend, messages_api):
    backend = cli_backend("none")
    with pytest.raises(LLMConfigError, match="not logged in"):
        backend.complete("Système", "Question", model="haiku", timeout=60)


def test_missing_cli_is_a_configuration_error(cli_backend, tmp_path):
    backend = cli_backend(executable=str(tmp_path / "no-such-claude"))
    with pytest.raises(LLMConfigError, match="CLAUDE_CLI_COMMAND"):
        backend.complete("Système", "Question", model="haiku", timeout=10)
    assert backend.health().status == "down"
