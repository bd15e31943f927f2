"""What the SSH and local Claude Code CLI backends share: the command line, the streaming
loop over stream-json lines, the deadline, the 429 retries and the health probe.

A backend only says how to start the command (`_start`) and where the CLI finds an image
(`image_location`); everything the CLI prints is parsed the same way.
"""

from __future__ import annotations

import logging
import queue
import shlex
import threading
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import timezone
from pathlib import Path
from typing import Iterator, Protocol, Sequence

from .base import ClaudeQuotaError, HealthReport, LLMConfigError, LLMError, LLMTimeout
from .cancel import on_cancel, raise_if_cancelled
from .rate_limit import RetryPolicy, with_rate_limit_retries
from .stream_json import StreamJsonParser

log = logging.getLogger(__name__)

DEFAULT_TIER_MODELS = {"haiku": "haiku", "sonnet": "sonnet", "opus": "opus"}
HEALTH_SYSTEM = "Réponds uniquement « OK »."
HEALTH_PROMPT = "ping"


@dataclass(frozen=True)
class ClaudeCommandConfig:
    executable: str = "claude"
    tier_models: dict = field(default_factory=lambda: dict(DEFAULT_TIER_MODELS))
    timeout_s: float = 180.0
    quota_time_zone: str = "UTC"
    rate_limit_retries: int = 3
    rate_limit_backoff_s: float = 2.0
    health_timeout_s: float = 30.0
    health_cache_s: float = 300.0


def claude_arguments(executable: str, system: str, model: str) -> list[str]:
    """The CLI call. `--append-system-prompt`, never `--system-prompt`: the latter replaces the
    CLI's own tool contract and the model then stops opening page images with Read."""
    return [
        executable, "-p",
        "--append-system-prompt", system,
        "--output-format", "stream-json", "--verbose", "--include-partial-messages",
        "--model", model,
    ]


def spooled_shell_command(arguments: list[str]) -> str:
    """A POSIX shell script running the CLI with its stdout in a temporary file that `tail`
    follows as it grows. The CLI (2.1.x) loses the end of its output when it exits while its
    stdout pipe is full (a slow reader, a busy network); a file is never full. Every argument
    is shell-quoted: prompts carry quotes, `$(…)` and backticks."""
    return (
        'out=$(mktemp) || exit 70; trap \'rm -f "$out"\' EXIT; trap "exit 143" HUP INT TERM; exec 3<&0; '
        f'{shlex.join(arguments)} <&3 >"$out" & cli=$!; '
        'tail --pid="$cli" -s 0.1 -c +1 -f "$out"; wait "$cli"'
    )


class RunningCommand(Protocol):
    """A started CLI process, local or remote. The prompt was written to its stdin."""

    def read_stdout(self, wait: float) -> bytes | None:
        """Up to `wait` seconds for output: b"" when none came, None once stdout is closed."""

    def stderr_text(self) -> str: ...

    def exit_status(self, wait: float) -> int | None: ...

    def terminate(self) -> None:
        """Make sure the process ends (it may be hung on the network). Thread-safe: a stop
        pressed while the CLI is silent calls it from another thread (rag/llm/cancel.py)."""


class StdoutPump:
    """Reads the CLI's stdout as fast as it comes, whatever the caller's pace. The CLI (2.1.x)
    loses the end of its output when it exits while its stdout pipe is full: a caller slowly
    forwarding tokens to a browser would otherwise get an answer without its `result` line."""

    def __init__(self, process: RunningCommand):
        self._process = process
        self._chunks: queue.SimpleQueue = queue.SimpleQueue()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="claude-stdout", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            while not self._stopped.is_set():
                chunk = self._process.read_stdout(0.2)
                if chunk is None:
                    break
                if chunk:
                    self._chunks.put(chunk)
        except Exception as exc:  # handed to the reading side, which raises it
            self._chunks.put(exc)
        finally:
            self._chunks.put(None)

    def get(self, wait: float) -> bytes | None:
        """Up to `wait` seconds for output: b"" when none came, None at the end of stdout."""
        try:
            item = self._chunks.get(timeout=wait)
        except queue.Empty:
            return b""
        if isinstance(item, Exception):
            if self._stopped.is_set():
                return None
            raise LLMError(f"reading the Claude CLI output failed: {item}") from item
        return item

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=1.0)


class ClaudeCodeBackend:
    """Base of `claude-ssh` and `claude-cli`."""

    name = "claude-code"
    available = True

    def __init__(self, config: ClaudeCommandConfig):
        self.config = config
        self._health_lock = threading.Lock()
        self._health: tuple[float, HealthReport] | None = None

    # --- what a concrete backend provides ----------------------------------------------------

    def _start(self, arguments: list[str], stdin: bytes, deadline: float) -> AbstractContextManager[RunningCommand]:
        raise NotImplementedError

    def _prepare_images(self, images: Sequence[Path], deadline: float) -> None:
        """Make the page images readable by the CLI (the SSH backend copies them over)."""

    def image_location(self, path: Path) -> str:
        """The path the CLI's Read tool opens for this page image: callers put it in the prompt."""
        return str(path)

    # --- the interface --------------------------------------------------------------------------

    def resolve_model(self, model: str) -> str:
        return self.config.tier_models.get(model) or model

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()) -> Iterator[str]:
        deadline = time.monotonic() + (timeout or self.config.timeout_s)
        arguments = claude_arguments(self.config.executable, system, self.resolve_model(model))
        try:
            self._prepare_images(images, deadline)
            yield from self._attempts(arguments, prompt.encode("utf-8"), deadline)
        except LLMConfigError as exc:
            self._remember(HealthReport(status="down", detail=str(exc)))
            raise
        except ClaudeQuotaError as exc:
            self._remember(_quota_report(exc))
            raise

    def _attempts(self, arguments: list[str], stdin: bytes, deadline: float) -> Iterator[str]:
        """One run, and more only after a plain HTTP 429 (retried with a doubling wait)."""
        policy = RetryPolicy(self.config.rate_limit_retries, self.config.rate_limit_backoff_s, self.config.quota_time_zone)
        yield from with_rate_limit_retries(lambda: self._run(arguments, stdin, deadline), policy, deadline)

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()) -> str:
        return "".join(self.stream(system, prompt, model=model, timeout=timeout, images=images))

    def health(self) -> HealthReport:
        """A real (tiny) call, at most once per `health_cache_s`: it is the only way to know that
        the CLI is logged in. A failed real call updates it at once."""
        with self._health_lock:
            cached = self._health
        if cached and time.monotonic() - cached[0] < self.config.health_cache_s:
            return cached[1]
        report = self._probe()
        self._remember(report)
        return report

    # --- internals ------------------------------------------------------------------------------

    def _run(self, arguments: list[str], stdin: bytes, deadline: float) -> Iterator[str]:
        parser = StreamJsonParser()
        # A stop pressed while the CLI is silent ends the process from the stopping thread.
        with self._start(arguments, stdin, deadline) as process, on_cancel(process.terminate):
            pump = StdoutPump(process)
            try:
                yield from self._parse_until_end(pump, process, parser, deadline)
            except LLMError:
                raise_if_cancelled()  # the read failed because the process was ended by a stop
                raise
            finally:
                pump.stop()
            raise_if_cancelled()  # ended by a stop: what it printed is neither an answer nor an error
            status = process.exit_status(max(0.1, min(5.0, deadline - time.monotonic())))
            stderr = process.stderr_text()
        error = parser.error(stderr, status, tz=self.config.quota_time_zone)
        if parser.malformed_lines:
            log.warning("Claude CLI printed %d line(s) that are not JSON", parser.malformed_lines)
        if error is not None:
            raise error

    def _parse_until_end(self, pump: StdoutPump, process: RunningCommand, parser: StreamJsonParser,
                         deadline: float) -> Iterator[str]:
        pending = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                process.terminate()
                raise LLMTimeout(f"Claude CLI did not finish in time ({self._describe(parser)})")
            chunk = pump.get(min(remaining, 0.5))
            if chunk is None:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield from parser.feed(line.decode("utf-8", errors="replace"))
        yield from parser.feed(pending.decode("utf-8", errors="replace"))

    def _probe(self) -> HealthReport:
        started = time.perf_counter()
        try:
            self.complete(HEALTH_SYSTEM, HEALTH_PROMPT, model="haiku", timeout=self.config.health_timeout_s)
        except ClaudeQuotaError as exc:
            return _quota_report(exc)
        except LLMError as exc:
            return HealthReport(status="down", detail=str(exc))
        latency = round((time.perf_counter() - started) * 1000, 1)
        return HealthReport(status="ok", detail=f"{self.describe()} answers", latency_ms=latency)

    def _remember(self, report: HealthReport) -> None:
        with self._health_lock:
            self._health = (time.monotonic(), report)

    def describe(self) -> str:
        return self.name

    @staticmethod
    def _describe(parser: StreamJsonParser) -> str:
        return "answer cut short" if parser.has_answer else "no answer yet"


def _quota_report(exc: ClaudeQuotaError) -> HealthReport:
    reset = exc.reset_at.astimezone(timezone.utc).isoformat(timespec="minutes")
    return HealthReport(status="down", detail=f"quota reached, resets at {reset}")
