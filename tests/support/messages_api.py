"""A local stand-in of the Anthropic Messages API (`POST /v1/messages`, streaming SSE) for the
real Claude Code CLI (`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`).

It replays the event sequence the real API sends (message_start, content_block_start, many
content_block_delta, content_block_stop, message_delta, message_stop) and the real error
answers (429 rate limit, 401, the subscription quota 429 with `anthropic-ratelimit-unified-*`
headers), and records every request so tests can assert what the CLI actually sent.

The mode is the server's `mode`, unless the user message contains `STANDIN:<mode>`.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.json_stub import send_json

MODES = ("normal", "slow", "huge", "rate_limit", "unauthorized", "hang", "quota", "overloaded")
DEFAULT_ANSWER = ["Selon ", "les règles, ", "on pioche ", "deux cartes ", "« à la fin » ", "du tour."]


@dataclass
class RecordedRequest:
    path: str
    headers: dict
    body: dict

    @property
    def system_text(self) -> str:
        system = self.body.get("system", "")
        if isinstance(system, str):
            return system
        return "\n".join(block.get("text", "") for block in system)

    @property
    def user_texts(self) -> list[str]:
        texts = []
        for message in self.body.get("messages", []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
                continue
            texts.extend(block.get("text", "") for block in content if block.get("type") == "text")
        return texts

    @property
    def model(self) -> str:
        return self.body.get("model", "")

    @property
    def tool_results(self) -> list[dict]:
        return _tool_results(self.body)


@dataclass
class MessagesAPI:
    """Settings of the stand-in, changed by tests between calls."""

    mode: str = "normal"
    answer: list[str] = field(default_factory=lambda: list(DEFAULT_ANSWER))
    slow_delay_s: float = 0.4
    huge_deltas: int = 4000
    quota_reset_at: int = 1767225600
    models_failing: set[str] = field(default_factory=set)  # these models hang (fallback tests)
    requests: list[RecordedRequest] = field(default_factory=list)
    url: str = ""
    active: int = 0  # conversation requests being answered right now
    max_active: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def track(self, delta: int) -> None:
        with self._lock:
            self.active += delta
            self.max_active = max(self.max_active, self.active)

    def conversation_requests(self) -> list[RecordedRequest]:
        """The requests that carried our prompt (the CLI may also send short side requests)."""
        return [r for r in self.requests if r.path.startswith("/v1/messages") and r.user_texts]

    def mode_for(self, request: RecordedRequest) -> str:
        for text in request.user_texts:
            found = re.search(r"STANDIN:(\w+)", text)
            if found:
                return found.group(1)
        if any(request.model.startswith(m) for m in self.models_failing):
            return "hang"
        return self.mode


def start_messages_api() -> tuple[MessagesAPI, ThreadingHTTPServer]:
    api = MessagesAPI()

    class Handler(_Handler):
        state = api

    server = _QuietServer(("127.0.0.1", 0), Handler)
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, name="messages-api", daemon=True).start()
    return api, server


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # the CLI drops keep-alive connections when it exits: not a test failure


class _Handler(BaseHTTPRequestHandler):
    state: MessagesAPI
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # keep test output quiet
        pass

    def do_HEAD(self):
        self._json(200, {})

    def do_GET(self):
        self._json(200, {"data": [], "has_more": False})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        request = RecordedRequest(path=self.path, headers=dict(self.headers), body=body)
        self.state.requests.append(request)
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            self._json(200, {"input_tokens": 10})
            return
        mode = self.state.mode_for(request)
        self.state.track(+1)
        try:
            getattr(self, f"_mode_{mode}")(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the CLI was stopped mid-answer (timeouts)
        finally:
            self.state.track(-1)

    # --- modes ---------------------------------------------------------------------------

    def _mode_normal(self, request):
        self._stream(request, self.state.answer)

    def _mode_slow(self, request):
        self._stream(request, self.state.answer, delay=self.state.slow_delay_s)

    def _mode_huge(self, request):
        deltas = [f"Ligne {i} : le joueur défausse une carte « bonus ». " for i in range(self.state.huge_deltas)]
        self._stream(request, deltas)

    def _mode_read_image(self, request):
        """Ask the CLI to Read the file named after `READ:` in the prompt, then answer: what the
        model does with a rules page image. The tool result comes back in the next request."""
        if _tool_results(request.body):
            self._stream(request, ["J'ai lu la page."])
            return
        path = re.search(r"READ:(\S+)", "\n".join(request.user_texts)).group(1)
        self._stream_headers()
        self._event("message_start", _message_start(request.model))
        self._event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_standin01", "name": "Read", "input": {}}})
        self._event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": json.dumps({"file_path": path})}})
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                      "usage": {"output_tokens": 20}})
        self._event("message_stop", {"type": "message_stop"})
        self.close_connection = True

    def _mode_hang(self, request):
        self._stream_headers()
        self._event("message_start", _message_start(request.model))
        for _ in range(600):  # pings only, until the client goes away (BrokenPipe ends it)
            time.sleep(1)
            self._event("ping", {"type": "ping"})

    def _mode_rate_limit(self, request):
        self._error(429, "rate_limit_error", "This request would exceed your account's rate limit.",
                    {"x-should-retry": "false", "retry-after": "0"})

    def _mode_overloaded(self, request):
        self._error(529, "overloaded_error", "Overloaded", {"x-should-retry": "false"})

    def _mode_unauthorized(self, request):
        self._error(401, "authentication_error", "invalid x-api-key", {"x-should-retry": "false"})

    def _mode_quota(self, request):
        headers = {
            "anthropic-ratelimit-unified-status": "rejected",
            "anthropic-ratelimit-unified-reset": str(self.state.quota_reset_at),
            "anthropic-ratelimit-unified-representative-claim": "five_hour",
            "anthropic-ratelimit-unified-overage-status": "rejected",
            "x-should-retry": "false",
        }
        self._error(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit.", headers)

    # --- wire format ---------------------------------------------------------------------

    def _stream(self, request, deltas, delay=0.0):
        self._stream_headers()
        self._event("message_start", _message_start(request.model))
        self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                            "content_block": {"type": "text", "text": ""}})
        self._event("ping", {"type": "ping"})
        for text in deltas:
            if delay:
                time.sleep(delay)
            self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "text_delta", "text": text}})
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._event("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                      "usage": {"output_tokens": len(deltas)}})
        self._event("message_stop", {"type": "message_stop"})
        self.close_connection = True

    def _stream_headers(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("request-id", f"req_standin_{uuid.uuid4().hex[:12]}")
        self.send_header("Connection", "close")
        self.end_headers()

    def _event(self, name, data):
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _error(self, status, kind, message, headers):
        send_json(self, status, {"type": "error", "error": {"type": kind, "message": message}}, headers)

    def _json(self, status, data):
        send_json(self, status, data)


def _tool_results(body: dict) -> list[dict]:
    """The tool_result blocks the CLI sent back (e.g. the page image it read)."""
    results = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            results.extend(block for block in content if block.get("type") == "tool_result")
    return results


def _message_start(model):
    return {"type": "message_start", "message": {
        "id": f"msg_standin_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant",
        "model": model or "claude-haiku-4-5", "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}}
