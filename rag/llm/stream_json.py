"""Parsing of the Claude Code CLI's `--output-format stream-json --verbose
--include-partial-messages` output, one line at a time as it arrives.

Text comes from `stream_event` text deltas (token by token); an `assistant` message only
adds text when no delta of that message was seen (CLI versions or turns without partial
messages). Synthetic assistant messages (`model: "<synthetic>"`) are the CLI's own error
notices, never answer text. The `result` line says how the call ended: branch on
`is_error`, not on `subtype` (errors come as `subtype: "success"`, `is_error: true`).

Quota wording is looked for only in what the CLI says about the run (its notices, stderr, the
`result` of a failed run), never in the model's answer: a rules answer may well say "once
you've hit the speed limit", and taking it for a quota would pause ingestion and show the
player a quota message for an hour.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from .base import LLMConfigError, LLMError, LLMNotSignedIn
from .quota import quota_error_from_rate_limit, quota_error_from_text
from .rate_limit import RateLimited

SYNTHETIC_MODEL = "<synthetic>"
_LOGIN_MARKERS = ("not logged in", "please run /login", "invalid api key", "oauth token has expired",
                  "authentication_failed", "authentication_error")


@dataclass
class CallOutcome:
    """What a finished CLI run said about itself."""

    is_error: bool | None = None  # None: no `result` line arrived
    result_text: str = ""
    subtype: str = ""
    api_error_status: int | None = None
    auth_error: str = ""
    rejected_rate_limit: dict | None = None


@dataclass
class StreamJsonParser:
    """Feed it stdout lines; it returns the text deltas to yield and remembers the rest."""

    outcome: CallOutcome = field(default_factory=CallOutcome)
    malformed_lines: int = 0
    _messages_with_deltas: set = field(default_factory=set)
    _current_message: str = ""
    _notices: list = field(default_factory=list)  # non-JSON lines, unknown events, CLI notices
    _answer: list = field(default_factory=list)

    @property
    def has_answer(self) -> bool:
        return bool(self._answer)

    def feed(self, line: str) -> list[str]:
        line = line.strip()
        if not line:
            return []
        try:
            event = json.loads(line)
        except ValueError:
            self.malformed_lines += 1
            self._notices.append(line)  # an older CLI may print its quota notice as plain text
            return []
        if not isinstance(event, dict):
            self.malformed_lines += 1
            return []
        handler = getattr(self, f"_on_{event.get('type')}", None)
        if handler is None:
            self._notices.append(line)
            return []
        return handler(event)

    def scanned_text(self, stderr: str = "") -> str:
        """What is searched for quota and login wording: what the CLI said about the run (its
        notices and synthetic messages, stderr, the `result` of a failed run — where older CLIs
        put their quota message), never the model's answer."""
        parts = [*self._notices, stderr]
        if self.outcome.is_error:
            parts.append(self.outcome.result_text)
        return "\n".join(parts)

    def error(self, stderr: str = "", exit_status: int | None = None, *, now: datetime | None = None,
              tz="UTC") -> LLMError | None:
        """The error this run ended with, or None when it answered. A quota the CLI reported
        wins over everything, even over text already produced."""
        if self.outcome.rejected_rate_limit is not None:
            return quota_error_from_rate_limit(self.outcome.rejected_rate_limit, now=now)
        text = self.scanned_text(stderr)
        quota = quota_error_from_text(text, now=now, tz=tz)
        if quota is not None:
            return quota
        if self.outcome.auth_error or _looks_like_login_problem(self.outcome, text):
            return LLMNotSignedIn(_login_detail(self.outcome, text))
        if self.outcome.is_error:
            message = self.outcome.result_text or self.outcome.subtype or "Claude CLI reported an error"
            if self.outcome.api_error_status == 429:
                return RateLimited(message)
            return LLMError(message)
        if self.outcome.is_error is None and exit_status == 127:
            detail = stderr.strip()[-300:] or "command not found"
            return LLMConfigError(f"Claude CLI not found (CLAUDE_CLI_COMMAND / CLAUDE_SSH_COMMAND): {detail}")
        if self.outcome.is_error is None and exit_status not in (0, None):
            detail = stderr.strip()[-500:] or f"exit status {exit_status}"
            return LLMError(f"Claude CLI failed: {detail}")
        if self.outcome.is_error is None:
            return LLMError("Claude CLI ended without a result")
        return None

    # --- event handlers --------------------------------------------------------------------

    def _on_stream_event(self, event: dict) -> list[str]:
        inner = event.get("event") or {}
        kind = inner.get("type")
        if kind == "message_start":
            self._current_message = (inner.get("message") or {}).get("id", "")
        elif kind == "content_block_delta":
            delta = inner.get("delta") or {}
            if delta.get("type") == "text_delta" and delta.get("text"):
                self._messages_with_deltas.add(self._current_message)
                self._answer.append(delta["text"])
                return [delta["text"]]
        return []

    def _on_assistant(self, event: dict) -> list[str]:
        message = event.get("message") or {}
        texts = [b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text"]
        if event.get("error") == "authentication_failed":
            self.outcome.auth_error = " ".join(texts) or "authentication_failed"
        if message.get("model") == SYNTHETIC_MODEL or event.get("error"):
            self._notices.extend(texts)
            return []
        if message.get("id") in self._messages_with_deltas:
            return []
        self._answer.extend(texts)
        return [t for t in texts if t]

    def _on_rate_limit_event(self, event: dict) -> list[str]:
        info = event.get("rate_limit_info") or {}
        if info.get("status") == "rejected":
            self.outcome.rejected_rate_limit = info
        return []

    def _on_result(self, event: dict) -> list[str]:
        self.outcome.is_error = bool(event.get("is_error"))
        self.outcome.result_text = str(event.get("result") or "")
        self.outcome.subtype = str(event.get("subtype") or "")
        status = event.get("api_error_status")
        self.outcome.api_error_status = status if isinstance(status, int) else None
        return []

    def _on_system(self, event: dict) -> list[str]:
        return []

    def _on_user(self, event: dict) -> list[str]:
        return []  # tool results fed back to the model (e.g. the page image it Read)


def _looks_like_login_problem(outcome: CallOutcome, text: str) -> bool:
    if outcome.api_error_status in (401, 403):
        return True
    if not outcome.is_error and outcome.is_error is not None:
        return False
    lowered = text.lower()
    return any(marker in lowered for marker in _LOGIN_MARKERS)


def _login_detail(outcome: CallOutcome, text: str) -> str:
    said = (outcome.auth_error or outcome.result_text or text).strip().splitlines()
    first = said[0][:200] if said else "authentication failed"
    return f"not logged in: run `claude /login` on the Claude host ({first})"
