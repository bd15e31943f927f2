"""`claude-ssh` through a real sshd running the real Claude CLI against the stand-in API."""

import threading
import time

import pytest

from rag.llm.stream_json import SYNTHETIC_MODEL  # noqa: F401  (documented synthetic model name)
from tests.rag.llm.conftest import remote_processes

pytestmark = pytest.mark.slow

SYSTEM = "Tu es l'Oracle des règles. Cite « la page » ; n'invente rien. $(whoami) `id` \"guillemets\" 'apostrophes'"
PROMPT = "Peut-on jouer une carte Boost après avoir dépassé la limite ? « été » $(rm -rf /) `reboot` \"q\" 'a'\n2e ligne"


def test_answer_streams_through_ssh_with_prompt_and_system_intact(ssh_backend, messages_api):
    backend = ssh_backend()

    deltas = list(backend.stream(SYSTEM, PROMPT, model="haiku", timeout=60))

    assert "".join(deltas) == "".join(messages_api.answer)
    assert len(deltas) == len(messages_api.answer)
    (request,) = messages_api.conversation_requests()
    assert request.user_texts[-1] == PROMPT
    assert request.system_text.endswith(SYSTEM)
    assert request.model.startswith("claude-haiku")
