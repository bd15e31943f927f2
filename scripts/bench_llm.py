"""LLM backend latency through the same stand-ins as the tests (real CLI, real sshd, local
Messages API): what our plumbing adds, not what a model costs. Prints figures; no pass/fail.

    scripts/install.sh --test && .venv/bin/python -m scripts.bench_llm
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from rag.llm.claude_cli import ClaudeCLIBackend
from rag.llm.claude_code import ClaudeCommandConfig
from rag.llm.claude_ssh import ClaudeSSHBackend, SSHConfig
from tests.support.messages_api import start_messages_api
from tests.support.sshd import start_sshd

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "var" / "claude-cli" / "node_modules" / ".bin"
RUNS = int(os.getenv("BENCH_LLM_RUNS", "5"))


def timed_call(backend, mode_api, mode: str = "normal") -> tuple[float, float]:
    mode_api.mode = mode
    started = time.perf_counter()
    first = None
    for _ in backend.stream("Système", "Question", model="haiku", timeout=120):
        if first is None:
            first = time.perf_counter() - started
    return first or 0.0, time.perf_counter() - started


def report(label: str, samples: list[tuple[float, float]]) -> None:
    firsts, totals = [s[0] for s in samples], [s[1] for s in samples]
    print(f"{label:<38} first token median {statistics.median(firsts) * 1000:7.0f} ms"
          f"   total median {statistics.median(totals) * 1000:7.0f} ms   (n={len(samples)})")


def main() -> None:
    api, server = start_messages_api()
    work = Path(tempfile.mkdtemp(prefix="bench-llm-"))
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(work / "home"), "ANTHROPIC_BASE_URL": api.url,
           "ANTHROPIC_API_KEY": "sk-bench", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    (work / "home").mkdir()
    os.environ.update(env)
    config = ClaudeCommandConfig(timeout_s=120)
    local = ClaudeCLIBackend(config, workdir=work / "cwd")
    sshd = start_sshd(work / "sshd", env)
    try:
        ssh = ClaudeSSHBackend(config, SSHConfig(host=sshd.host, port=sshd.port, user=sshd.user,
                                                 key_path=str(sshd.key_path), known_hosts_path=str(sshd.known_hosts_path)))
        report("claude-cli (local subprocess)", [timed_call(local, api) for _ in range(RUNS)])
        first = timed_call(ssh, api)
        report("claude-ssh first call (connects)", [first])
        report("claude-ssh reused connection", [timed_call(ssh, api) for _ in range(RUNS)])
        api.huge_deltas = 4000
        first, total = timed_call(ssh, api, "huge")
        print(f"claude-ssh huge answer: 4000 deltas ({sum(len(f'Ligne {i} : le joueur défausse une carte « bonus ». ') for i in range(4000)) // 1024} KiB) "
              f"in {total * 1000:.0f} ms, first after {first * 1000:.0f} ms")
        ssh.connection.close()
    finally:
        sshd.stop()
        server.shutdown()


if __name__ == "__main__":
    main()
