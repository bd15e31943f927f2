"""`LLM_BACKEND=openai`: any OpenAI-compatible chat completions server (Ollama, llama.cpp
server, vLLM…), streamed with httpx (`stream: true`, one `data: {json}` line per chunk,
`data: [DONE]` at the end).

An answer is complete only with its `[DONE]`: a body cut before it (the server's runner
crashed, a proxy dropped the connection) is an error, so the caller falls back. The call's
timeout bounds its whole time: httpx's read timeout is per read, so a watchdog hangs up the
response at the deadline (the same hang-up serves a stop pressed while the model is silent).
HTTP 429 is retried like the Claude backends' (rag/llm/rate_limit.py), `Retry-After` honoured.
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import httpx

from .base import AnswerStopped, HealthReport, LLMConfigError, LLMError, LLMTimeout, LLMUnreachable
from .cancel import on_cancel
from .rate_limit import RateLimited, RetryPolicy, retry_after_seconds, with_rate_limit_retries


@dataclass(frozen=True)
class OpenAIConfig:
    base_url: str  # up to /v1
    model: str
    api_key: str = ""
    tier_models: dict = field(default_factory=dict)
    timeout_s: float = 180.0
    connect_timeout_s: float = 10.0
    health_timeout_s: float = 10.0
    rate_limit_retries: int = 3
    rate_limit_backoff_s: float = 5.0


class OpenAIBackend:
    name = "openai"
    available = True

    def __init__(self, config: OpenAIConfig):
        self.config = config
        self._client = httpx.Client(
            base_url=config.base_url.rstrip("/") + "/",
            headers={"Authorization": f"Bearer {config.api_key}"} if config.api_key else {},
        )

    def resolve_model(self, model: str) -> str:
        if model in ("haiku", "sonnet", "opus"):
            return self.config.tier_models.get(model) or self.config.model
        return model

    def image_location(self, path: Path) -> str:
        return f"{path.parent.name}/{path.name} (image jointe)"

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()) -> Iterator[str]:
        deadline = time.monotonic() + (timeout or self.config.timeout_s)
        body = {
            "model": self.resolve_model(model),
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": _user_content(prompt, images)}],
            "stream": True,
        }
        policy = RetryPolicy(self.config.rate_limit_retries, self.config.rate_limit_backoff_s)
        yield from with_rate_limit_retries(lambda: self._run(body, deadline), policy, deadline)

    def _run(self, body: dict, deadline: float) -> Iterator[str]:
        try:
            with self._client.stream("POST", "chat/completions", json=body, timeout=self._timeout(deadline)) as response:
                _raise_for_status(response)
                with HangUp(response, deadline, self.config.base_url) as hang_up, on_cancel(hang_up.cancel):
                    try:
                        yield from self._deltas(response)
                    except (httpx.HTTPError, LLMError):
                        hang_up.raise_if_hung_up()  # cut by the deadline or a stop, not by the server
                        raise
        except httpx.TimeoutException as exc:
            raise LLMTimeout(f"{self.config.base_url} did not answer in time") from exc
        except httpx.ConnectError as exc:  # nothing answers at that address
            raise LLMUnreachable(f"{self.config.base_url} unreachable: {exc}") from exc
        except httpx.HTTPError as exc:
            raise LLMError(f"{self.config.base_url} failed: {exc}") from exc

    def complete(self, system, prompt, *, model="sonnet", timeout=None, images=()) -> str:
        return "".join(self.stream(system, prompt, model=model, timeout=timeout, images=images))

    def health(self) -> HealthReport:
        started = time.perf_counter()
        try:
            response = self._client.get("models", timeout=self.config.health_timeout_s)
        except httpx.HTTPError as exc:
            return HealthReport(status="down", detail=f"{self.config.base_url} unreachable: {exc}")
        if response.status_code in (401, 403):
            return HealthReport(status="down", detail=f"{self.config.base_url} refused the API key (OPENAI_API_KEY)")
        if response.status_code >= 400:
            return HealthReport(status="down", detail=f"{self.config.base_url}/models answered {response.status_code}")
        latency = round((time.perf_counter() - started) * 1000, 1)
        served = [m.get("id") for m in (response.json().get("data") or []) if isinstance(m, dict)]
        if served and self.config.model not in served:
            return HealthReport(status="down", latency_ms=latency,
                                detail=f"model {self.config.model!r} not served (available: {', '.join(served[:10])})")
        return HealthReport(status="ok", latency_ms=latency, detail=f"{self.config.model} at {self.config.base_url}")

    def _deltas(self, response: httpx.Response) -> Iterator[str]:
        for line in response.iter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            try:
                chunk = json.loads(data)
            except ValueError:
                continue
            if chunk.get("error"):
                raise LLMError(f"{self.config.base_url}: {_error_message(chunk['error'])}")
            for choice in chunk.get("choices") or []:
                text = (choice.get("delta") or {}).get("content")
                if text:
                    yield text
        raise LLMError(f"{self.config.base_url} ended the answer without [DONE] (cut short)")

    def _timeout(self, deadline: float) -> httpx.Timeout:
        remaining = max(0.1, deadline - time.monotonic())
        return httpx.Timeout(remaining, connect=min(self.config.connect_timeout_s, remaining))

    def close(self) -> None:
        self._client.close()


class HangUp:
    """Ends a streamed response from another thread: at the deadline (a timer) or when the call
    is cancelled. Closing the response would not wake a read blocked on its socket; shutting
    the socket down does, and the read then ends as if the server had closed it."""

    def __init__(self, response: httpx.Response, deadline: float, where: str):
        self._response = response
        self._where = where
        self.reason = ""  # "timeout" | "cancelled" once hung up
        self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._hang_up, args=("timeout",))
        self._timer.daemon = True

    def __enter__(self) -> "HangUp":
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def cancel(self) -> None:
        self._hang_up("cancelled")

    def raise_if_hung_up(self) -> None:
        if self.reason == "timeout":
            raise LLMTimeout(f"{self._where} did not finish in time")
        if self.reason == "cancelled":
            raise AnswerStopped

    def _hang_up(self, reason: str) -> None:
        self.reason = self.reason or reason
        stream = self._response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            self._response.close()  # no socket to shut (another transport): the next read fails
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed: the read has ended


def _user_content(prompt: str, images: Sequence[Path]):
    if not images:
        return prompt
    parts = [{"type": "text", "text": prompt}]
    for image in images:
        encoded = base64.b64encode(Path(image).read_bytes()).decode()
        parts.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}})
    return parts


def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    response.read()
    message = _error_message(_json_or_text(response))
    if response.status_code in (401, 403):
        raise LLMConfigError(f"the OpenAI-compatible server refused the API key: {message}")
    if response.status_code == 404:
        raise LLMConfigError(f"model or endpoint not found: {message}")
    if response.status_code == 429:
        retry_after = retry_after_seconds(response.headers.get("retry-after"))
        raise RateLimited(f"the OpenAI-compatible server answered 429: {message}", retry_after=retry_after)
    raise LLMError(f"the OpenAI-compatible server answered {response.status_code}: {message}")


def _json_or_text(response: httpx.Response):
    try:
        return response.json().get("error", response.text)
    except ValueError:
        return response.text


def _error_message(error) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error)[:300]
