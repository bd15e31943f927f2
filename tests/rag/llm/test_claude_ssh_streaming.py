"""`claude-ssh` through a real sshd running the real Claude CLI against the stand-in API."""

import threading
import time
import uuid
from pathlib import Path

import pytest

from rag.llm.base import LLMConfigError
from rag.llm.claude_code import claude_arguments
from tests.rag.llm.conftest import remote_processes

pytestmark = pytest.mark.slow

SYSTEM = "Tu es l'Oracle des règles. Cite « la page » ; n'invente rien. $(whoami) `id` \"guillemets\" 'apostrophes'"
PROMPT = "Peut-on jouer une carte Boost après avoir dépassé la limite ? « été » $(rm -rf /) `reboot` \"q\" 'a'\n2e ligne"


def cli_argv(marker: str) -> list[str]:
    """The argv of the running CLI whose system prompt carries `marker`, read from /proc."""
    for line in remote_processes(marker):
        pid = line.split()[0]
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        args = [a.decode() for a in argv if a]
        if "-p" in args:
            return args
    return []


def test_answer_streams_through_ssh_with_prompt_and_system_intact(ssh_backend, messages_api):
    backend = ssh_backend()

    deltas = list(backend.stream(SYSTEM, PROMPT, model="haiku", timeout=60))

    assert "".join(deltas) == "".join(messages_api.answer)
    assert len(deltas) == len(messages_api.answer)
    (request,) = messages_api.conversation_requests()
    assert request.user_texts[-1] == PROMPT
    assert request.system_text.endswith(SYSTEM)
    assert request.model.startswith("claude-haiku")


def test_first_tokens_arrive_while_the_remote_cli_still_runs(ssh_backend, messages_api):
    messages_api.mode = "slow"
    marker = f"oracle-test-{uuid.uuid4().hex}"
    stream = ssh_backend().stream(f"{SYSTEM} {marker}", PROMPT, model="sonnet", timeout=60)

    first = next(stream)
    argv_while_streaming = cli_argv(marker)
    rest = list(stream)

    assert first == messages_api.answer[0]
    assert argv_while_streaming, "the remote CLI had already ended when the first token arrived"
    assert first + "".join(rest) == "".join(messages_api.answer)


def test_remote_command_appends_the_system_prompt_and_never_replaces_it(ssh_backend, messages_api):
    messages_api.mode = "slow"
    marker = f"oracle-test-{uuid.uuid4().hex}"
    system = f"{SYSTEM} {marker}"
    stream = ssh_backend().stream(system, PROMPT, model="opus", timeout=60)
    next(stream)
    argv = cli_argv(marker)
    list(stream)

    assert "--system-prompt" not in argv
    assert argv[argv.index("--append-system-prompt") + 1] == system
    assert argv[argv.index("--model") + 1] == "opus"
    assert {"-p", "--verbose", "--include-partial-messages"} <= set(argv)
    assert argv[argv.index("--output-format") + 1] == "stream-json"


def test_command_builder_never_uses_system_prompt():
    arguments = claude_arguments("claude", "--system-prompt x", "sonnet")
    assert "--system-prompt" not in arguments[:2] + arguments[3:]
    assert arguments[2] == "--append-system-prompt"


def test_huge_answer_streams_whole(ssh_backend, messages_api):
    messages_api.mode = "huge"
    messages_api.huge_deltas = 4000

    answer = ssh_backend().complete("Système", "Tout le livret, s'il te plaît.", model="haiku", timeout=120)

    lines = answer.split(". ")
    assert answer.startswith("Ligne 0 : le joueur défausse une carte « bonus »")
    assert "Ligne 3999 : le joueur" in answer
    assert len(lines) >= 4000


def test_a_slow_caller_still_gets_the_whole_huge_answer(ssh_backend, messages_api):
    # The real CLI drops the end of its output if it exits while nobody reads its stdout.
    messages_api.mode = "huge"
    messages_api.huge_deltas = 4000
    received = []

    for text in ssh_backend().stream("Système", "Tout le livret.", model="haiku", timeout=180):
        received.append(text)
        time.sleep(0.002)  # a caller forwarding each token to a slow browser

    assert len(received) == 4000
    assert received[-1].startswith("Ligne 3999 : ")


def test_one_connection_is_reused_across_calls(ssh_backend, sshd_servers, messages_api):
    server = sshd_servers("api_key")
    backend = ssh_backend()
    before = server.accepted_logins()

    answers = [backend.complete("Système", f"Question {i}", model="haiku", timeout=60) for i in range(3)]

    assert all(answer == "".join(messages_api.answer) for answer in answers)
    assert server.accepted_logins() - before == 1


def test_no_more_than_the_configured_commands_run_at_once(ssh_backend, messages_api):
    messages_api.mode = "slow"
    messages_api.slow_delay_s = 0.8  # long enough for two answers to overlap on a busy machine
    backend = ssh_backend(ssh_overrides={"max_concurrent": 2})
    answers = []

    def ask(i):
        answers.append(backend.complete("Système", f"Question {i}", model="haiku", timeout=120))

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)

    assert len(answers) == 4
    assert messages_api.max_active == 2


def test_unknown_host_key_is_refused_as_a_configuration_error(ssh_backend, tmp_path):
    empty_known_hosts = tmp_path / "known_hosts"
    empty_known_hosts.write_text("")
    backend = ssh_backend(ssh_overrides={"known_hosts_path": str(empty_known_hosts)})

    with pytest.raises(LLMConfigError, match="unknown SSH host"):
        backend.complete("Système", "Question", model="haiku", timeout=30)


def test_unknown_host_is_accepted_only_when_configured(ssh_backend, tmp_path, messages_api):
    empty_known_hosts = tmp_path / "known_hosts"
    empty_known_hosts.write_text("")
    backend = ssh_backend(ssh_overrides={"known_hosts_path": str(empty_known_hosts), "accept_unknown_host": True})

    assert backend.complete("Système", "Question", model="haiku", timeout=60) == "".join(messages_api.answer)
