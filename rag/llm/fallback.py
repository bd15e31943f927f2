"""Timeouts everywhere and a fall-back model: the wrapper every configured backend gets.

A call without its own timeout gets `LLM_TIMEOUT_S`. When the primary model times out or
fails before producing any text, the call is made again once with the fall-back model
(`LLM_FALLBACK_MODEL`). A quota or a configuration error is not retried on another model:
it is the same account, and the caller must pause or show it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Iterator

from .base import ClaudeQuotaError, HealthReport, LLMConfigError, LLMError, LLMUnavailable
from .cancel import raise_if_cancelled

log = logging.getLogger(__name__)


class WithFallback:
    def __init__(self, backend, *, fallback_model: str = "", timeout_s: float = 180.0, fallback_timeout_s: float = 120.0):
        self.backend = backend
        self.fallback_model = fallback_model
        self.timeout_s = timeout_s
        self.fallback_timeout_s = fallback_timeout_s

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def available(self) -> bool:
        return self.backend.available

    def image_location(self, path: Path) -> str:
        return self.backend.image_location(path)

    def resolve_model(self, model: str) -> str:
        return self.backend.resolve_model(model)

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()) -> Iterator[str]:
        produced = False
        try:
            for text in self.backend.stream(system, prompt, model=model, timeout=timeout or self.timeout_s, images=images):
                produced = True
                yield text
            return
        except (ClaudeQuotaError, LLMConfigError, LLMUnavailable):
            raise
        except LLMError as exc:
            if produced or not self._has_fallback(model):
                raise
            raise_if_cancelled()  # a stopped call starts no other
            log.warning("LLM %s failed (%s); falling back to %s", model, exc, self.fallback_model)
        yield from self.backend.stream(
            system, prompt, model=self.fallback_model, timeout=min(timeout or self.fallback_timeout_s, self.fallback_timeout_s),
            images=images,
        )

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()) -> str:
        return "".join(self.stream(system, prompt, model=model, timeout=timeout, images=images))

    def health(self) -> HealthReport:
        return self.backend.health()

    def _has_fallback(self, model: str) -> bool:
        if not self.fallback_model:
            return False
        return self.backend.resolve_model(self.fallback_model) != self.backend.resolve_model(model)
