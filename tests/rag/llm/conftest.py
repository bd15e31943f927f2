"""Fixtures for the LLM backends, all through the real protocols: the real Claude Code CLI
(installed by `scripts/install.sh --test` under var/claude-cli), a real OpenSSH sshd on
127.0.0.1, and a local stand-in of the Anthropic Messages API the CLI talks to."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from rag.llm.claude_cli import ClaudeCLIBackend
from rag.llm.claude_code import ClaudeCommandConfig
from rag.llm.claude_ssh import ClaudeSSHBackend, SSHConfig
from tests.support.messages_api import start_messages_api
from tests.support.sshd import start_sshd

REPO = Path(__file__).resolve().parents[3]
CLAUDE_BIN_DIR = REPO / "var" / "claude-cli" / "node_modules" / ".bin"
CREDENTIALS = ("api_key", "oauth", "none")


@pytest.fixture(scope="session")
def claude_bin_dir() -> Path:
    if not (CLAUDE_BIN_DIR / "claude").exists():
        pytest.fail("the Claude CLI is missing: run `scripts/install.sh --test` (installs it under var/claude-cli)")
    return CLAUDE_BIN_DIR


@pytest.fixture(scope="session")
def messages_api_server():
    api, server = start_messages_api()
    yield api
    server.shutdown()
    server.server_close()


@pytest.fixture
def messages_api(messages_api_server):
    """The stand-in, reset to a normal answer for each test."""
    api = messages_api_server
    defaults = type(api)()
    api.mode, api.answer, api.models_failing = defaults.mode, defaults.answer, set()
    api.slow_delay_s, api.quota_reset_at = defaults.slow_delay_s, defaults.quota_reset_at
    api.requests.clear()
    api.active = api.max_active = 0
    return api


def cli_environment(bin_dir: Path, api_url: str, home: Path, credentials: str) -> dict[str, str]:
    """What the CLI needs to talk to the stand-in: `api_key` (console account), `oauth`
    (a subscription login: quota answers become rate_limit_event) or `none` (not logged in)."""
    env = {
        "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": api_url,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    if credentials == "api_key":
        env["ANTHROPIC_API_KEY"] = "sk-ant-standin"
    elif credentials == "oauth":
        env["CLAUDE_CODE_OAUTH_TOKEN"] = "standin-oauth-token"
    return env


@pytest.fixture(scope="session")
def sshd_servers(tmp_path_factory, claude_bin_dir, messages_api_server):
    """One real sshd per kind of credentials the remote CLI runs with, started on demand."""
    servers = {}

    def get(credentials: str = "api_key"):
        if credentials not in servers:
            folder = tmp_path_factory.mktemp(f"sshd-{credentials}")
            home = folder / "home"
            home.mkdir()
            env = cli_environment(claude_bin_dir, messages_api_server.url, home, credentials)
            servers[credentials] = start_sshd(folder / "sshd", env)
        return servers[credentials]

    yield get
    for server in servers.values():
        server.stop()


def command_config(executable: str = "claude", **overrides) -> ClaudeCommandConfig:
    values = {"executable": executable, "timeout_s": 60.0, "rate_limit_backoff_s": 0.1, "quota_time_zone": "Europe/Paris"}
    values.update(overrides)
    return ClaudeCommandConfig(**values)


@pytest.fixture
def ssh_backend(sshd_servers, tmp_path):
    """Builds a `claude-ssh` backend against the test sshd; connections closed afterwards."""
    built = []

    def make(credentials: str = "api_key", *, executable: str = "claude", ssh_overrides=None, **config):
        server = sshd_servers(credentials)
        values = {
            "host": server.host, "port": server.port, "user": server.user, "key_path": str(server.key_path),
            "known_hosts_path": str(server.known_hosts_path), "images_path": str(tmp_path / "vm-images"),
            "local_images_root": str(tmp_path / "page-images"),
        }
        ssh = SSHConfig(**{**values, **(ssh_overrides or {})})
        backend = ClaudeSSHBackend(command_config(executable, **config), ssh)
        built.append(backend)
        return backend

    yield make
    for backend in built:
        backend.connection.close()


@pytest.fixture
def cli_backend(claude_bin_dir, messages_api, tmp_path, monkeypatch):
    """Builds a `claude-cli` backend; the local CLI inherits this process's environment."""

    def make(credentials: str = "api_key", *, executable: str = "claude", **config):
        home = tmp_path / f"home-{credentials}"
        home.mkdir(exist_ok=True)
        for name in ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        for name, value in cli_environment(claude_bin_dir, messages_api.url, home, credentials).items():
            monkeypatch.setenv(name, value)
        return ClaudeCLIBackend(command_config(executable, **config), workdir=tmp_path / "workdir")

    return make


@pytest.fixture
def replay_cli(tmp_path):
    """A stand-in `claude` that prints recorded lines (older CLI wordings) and exits."""

    def make(lines: list[str], exit_status: int = 1, stderr: str = "") -> str:
        script = tmp_path / f"claude-replay-{len(list(tmp_path.glob('claude-replay-*')))}"
        output = tmp_path / f"{script.name}.out"
        output.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        error = tmp_path / f"{script.name}.err"
        error.write_text(stderr, encoding="utf-8")
        script.write_text(f"#!/bin/sh\ncat > /dev/null\ncat '{output}'\ncat '{error}' >&2\nexit {exit_status}\n")
        script.chmod(0o755)
        return str(script)

    return make


def remote_processes(marker: str) -> list[str]:
    """Command lines of running processes containing `marker` (the remote side is this machine)."""
    found = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout.splitlines()
    return [line for line in found if "pgrep" not in line and str(os.getpid()) != line.split()[0]]
