"""The one interface every LLM step uses (classify, HyDE, hierarchy, contexts, conflicts,
answers, deck specs). Backends stream text deltas; `complete` is built on `stream`.

Callers check `backend.available` first and take their offline path when it is False
(docs/architecture.md, decision 3). Errors are typed so callers can tell a quota pause (resume
later) from a failure (fall back) from a configuration mistake (show it plainly).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterator, Protocol, Sequence

MODEL_TIERS = ("haiku", "sonnet", "opus")


class AnswerStopped(Exception):
    """The player stopped the answer (« Arrêter »): raised by a stoppable backend
    (questions.ask_flow.stop.StoppableLLM) before or during a call. Not an `LLMError`: the
    fall-backs (decomposition, deck spec, rerank…) catch `LLMError` only and let it through,
    so no later step runs nor starts another call; the ask flow catches it where the text
    streamed until then is kept."""


class LLMError(RuntimeError):
    """A call failed; callers fall back to their offline path."""


class LLMUnavailable(LLMError):
    """No LLM is configured (`LLM_BACKEND=none`)."""


class LLMTimeout(LLMError):
    """The call (or its fall-back) did not finish in time."""


class LLMUnreachable(LLMError):
    """The LLM service could not be reached (SSH connection refused, server down)."""


class LLMConfigError(LLMError):
    """Misconfiguration (not logged in, unknown host key…): shown in /api/health, never retried."""


class LLMNotSignedIn(LLMConfigError):
    """The Claude CLI is not logged in (or its login expired): an admin must run `/login` again."""


class ClaudeQuotaError(LLMError):
    """The subscription quota is exhausted until `reset_at`: long jobs pause, they do not fail."""

    def __init__(self, reset_at: datetime, message: str = ""):
        self.reset_at = reset_at
        super().__init__(message or f"LLM quota reached, resets at {reset_at.isoformat()}")


@dataclass(frozen=True)
class HealthReport:
    status: str  # "ok" | "down" | "disabled"
    detail: str = ""
    latency_ms: float | None = None
    extra: dict = field(default_factory=dict)


class LLMBackend(Protocol):
    name: str
    available: bool

    def stream(
        self,
        system: str,
        prompt: str,
        *,
        model: str = "sonnet",
        timeout: float | None = None,
        images: Sequence[Path] = (),
    ) -> Iterator[str]: ...

    def complete(
        self,
        system: str,
        prompt: str,
        *,
        model: str = "sonnet",
        timeout: float | None = None,
        images: Sequence[Path] = (),
    ) -> str: ...

    def health(self) -> HealthReport: ...

    def image_location(self, path: Path) -> str:
        """Where the model reads this page image (the VM's path for claude-ssh): put it in the prompt
        and pass the local path in `images=` so the backend makes it readable there."""
        ...

    def resolve_model(self, model: str) -> str:
        """The model name a tier (haiku | sonnet | opus) maps to; other names pass through."""
        ...


class NoLLM:
    """`LLM_BACKEND=none`: every step takes its offline path."""

    name = "none"
    available = False

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()) -> Iterator[str]:
        raise LLMUnavailable("no LLM configured")

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()) -> str:
        raise LLMUnavailable("no LLM configured")

    def image_location(self, path: Path) -> str:
        return str(path)

    def resolve_model(self, model: str) -> str:
        return model

    def health(self) -> HealthReport:
        return HealthReport(status="disabled", detail="no LLM configured: offline paths (extractive answers)")
