"""`LLM_BACKEND=claude-cli`: the Claude Code CLI installed on this machine, run as a local
subprocess with the same command line and the same stream-json parsing as over SSH."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path

from .base import LLMConfigError, LLMError
from .claude_code import ClaudeCodeBackend, ClaudeCommandConfig, spooled_shell_command


class LocalCommand:
    """A local process in its own process group, so a timeout can end it with its children."""

    def __init__(self, arguments: list[str], stdin: bytes, workdir: Path | None):
        try:
            self._process = subprocess.Popen(
                arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=workdir, start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise LLMConfigError(f"Claude CLI not found: {arguments[0]!r} (CLAUDE_CLI_COMMAND)") from exc
        except OSError as exc:
            raise LLMError(f"could not start the Claude CLI: {exc}") from exc
        self._stderr = bytearray()
        threading.Thread(target=self._write_stdin, args=(stdin,), daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._process.stdout, selectors.EVENT_READ)

    def _write_stdin(self, data: bytes) -> None:
        try:
            self._process.stdin.write(data)
            self._process.stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass  # the process ended first; its output says why

    def _drain_stderr(self) -> None:
        for chunk in iter(lambda: self._process.stderr.read1(65536), b""):
            self._stderr.extend(chunk)

    def read_stdout(self, wait: float) -> bytes | None:
        if not self._selector.select(timeout=wait):
            return b""
        chunk = os.read(self._process.stdout.fileno(), 65536)
        return chunk or None

    def stderr_text(self) -> str:
        return self._stderr.decode("utf-8", errors="replace")

    def exit_status(self, wait: float) -> int | None:
        try:
            return self._process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def terminate(self) -> None:
        if self._process.poll() is not None:
            return
        _signal_group(self._process.pid, signal.SIGTERM)
        try:
            self._process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            _signal_group(self._process.pid, signal.SIGKILL)
            self._process.wait(timeout=3)

    def close(self) -> None:
        self.terminate()
        self._selector.close()
        for stream in (self._process.stdout, self._process.stderr):
            stream.close()


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass


class ClaudeCLIBackend(ClaudeCodeBackend):
    name = "claude-cli"

    def __init__(self, config: ClaudeCommandConfig, workdir: Path | None = None):
        super().__init__(config)
        # A neutral working directory: the CLI reads CLAUDE.md files from where it runs.
        self.workdir = workdir

    @contextmanager
    def _start(self, arguments, stdin, deadline):
        if self.workdir is not None:
            self.workdir.mkdir(parents=True, exist_ok=True)
        command = LocalCommand(["/bin/sh", "-c", spooled_shell_command(arguments)], stdin, self.workdir)
        try:
            yield command
        finally:
            command.close()

    def describe(self) -> str:
        return f"local Claude CLI ({self.config.executable})"
