"""A local OpenAI-compatible chat completions server (as Ollama's /v1 and llama-server stream
it: `data: {chunk}` lines, a final usage chunk, `data: [DONE]`), recording what it received."""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.json_stub import send_json

MODES = ("normal", "slow", "hang", "unauthorized", "error_mid_stream", "not_found", "rate_limit")


@dataclass
class ChatServer:
    mode: str = "normal"
    answer: list[str] = field(default_factory=lambda: ["Selon ", "le livret, ", "on pioche ", "deux cartes."])
    models: list[str] = field(default_factory=lambda: ["gemma3:4b"])
    api_key: str = ""
    slow_delay_s: float = 0.3
    requests: list[dict] = field(default_factory=list)
    reply: Callable[[dict], list[str]] | None = None  # the answer's pieces per request body, instead of `answer`
    streams_finished: int = 0
    url: str = ""
    rate_limited_next: int = 0  # the next requests answered 429 (mode `rate_limit`: every one)
    retry_after: str = ""  # the 429's Retry-After header, when set


def start_chat_server() -> tuple[ChatServer, ThreadingHTTPServer]:
    state = ChatServer()

    class Handler(_Handler):
        chat = state

    server = _QuietServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    threading.Thread(target=server.serve_forever, name="chat-completions", daemon=True).start()
    return state, server


@contextmanager
def chat_backend(settings, **overrides):
    """A stand-in started and configured as the site's LLM (LLM_BACKEND=openai, model
    gemma3:4b, no Claude model names, no rerank service, no LLM rerank); `overrides`: other
    settings by name. Yields its state; stops it after."""
    from rag.llm.factory import forget_backends

    state, server = start_chat_server()
    settings.LLM_BACKEND, settings.OPENAI_BASE_URL, settings.OPENAI_MODEL = "openai", state.url, "gemma3:4b"
    settings.LLM_MODEL_HAIKU = settings.LLM_MODEL_SONNET = settings.LLM_MODEL_OPUS = ""
    settings.RERANK_URL, settings.ASK_LLM_RERANK = "", False
    for name, value in overrides.items():
        setattr(settings, name, value)
    forget_backends()
    try:
        yield state
    finally:
        forget_backends()
        server.shutdown()
        server.server_close()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


class _Handler(BaseHTTPRequestHandler):
    chat: ChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def _authorized(self) -> bool:
        if self.chat.mode == "unauthorized":
            return False
        return not self.chat.api_key or self.headers.get("Authorization") == f"Bearer {self.chat.api_key}"

    def do_GET(self):
        if not self._authorized():
            return self._json(401, {"error": {"message": "Invalid API key", "type": "invalid_request_error"}})
        if self.path.rstrip("/") == "/v1/models":
            return self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in self.chat.models]})
        self._json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        self.chat.requests.append(body)
        if not self._authorized():
            return self._json(401, {"error": {"message": "Invalid API key", "type": "invalid_request_error"}})
        if self.chat.mode == "rate_limit" or self.chat.rate_limited_next > 0:
            self.chat.rate_limited_next -= 1
            headers = {"Retry-After": self.chat.retry_after} if self.chat.retry_after else {}
            return send_json(self, 429, {"error": {"message": "Rate limit reached for requests", "type": "rate_limit_error"}},
                             headers)
        if self.chat.mode == "not_found" or body.get("model") not in self.chat.models:
            return self._json(404, {"error": {"message": f"model \"{body.get('model')}\" not found, try pulling it first"}})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            self._stream(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def _stream(self, body):
        model = body["model"]
        self._chunk(model, {"role": "assistant", "content": ""}, None)
        if self.chat.mode == "hang":
            time.sleep(60)
            return
        answer = self.chat.reply(body) if self.chat.reply else self.chat.answer
        for i, text in enumerate(answer):
            if self.chat.mode == "slow":
                time.sleep(self.chat.slow_delay_s)
            if self.chat.mode == "error_mid_stream" and i == 2:
                self._data({"error": {"message": "model runner has unexpectedly stopped", "type": "api_error"}})
                return
            self._chunk(model, {"content": text}, None)
        self._chunk(model, {}, "stop")
        self._data({"id": "chatcmpl-86", "object": "chat.completion.chunk", "created": 1743277352, "model": model,
                    "choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34}})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.chat.streams_finished += 1

    def _chunk(self, model, delta, finish_reason):
        self._data({"id": "chatcmpl-86", "object": "chat.completion.chunk", "created": 1743277352, "model": model,
                    "system_fingerprint": "fp_ollama",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})

    def _data(self, payload):
        self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
        self.wfile.flush()

    def _json(self, status, payload):
        send_json(self, status, payload)
