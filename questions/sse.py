"""Server-sent events of one answer: a bridge from the answering thread to the response.

The answering thread calls `emit` from anywhere; the response's async generator sends
`meta` (the question's id and its conversation's) at once, then every event in order, and a
`heartbeat` whenever nothing else was sent for `heartbeat_s` (proxies close idle connections).
When the client goes away the generator stops; the thread does not notice and finishes (and
persists) the answer.
"""

from __future__ import annotations

import asyncio
import json

FINAL_EVENTS = ("done", "error")


def format_event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


class AnswerStream:
    def __init__(self, question_id, heartbeat_s: float, conversation_id=None):
        self.question_id = str(question_id)
        self.conversation_id = str(conversation_id) if conversation_id else None
        self.heartbeat_s = heartbeat_s
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue = asyncio.Queue()

    def emit(self, name: str, data: dict) -> None:
        """Thread-safe; never raises (the listener may be gone, the answer must go on)."""
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (name, data))
        except RuntimeError:  # the event loop is closed: nobody is listening any more
            pass

    async def events(self):
        meta = {"questionId": self.question_id}
        if self.conversation_id:
            meta["conversationId"] = self.conversation_id
        yield format_event("meta", meta)
        while True:
            try:
                name, data = await asyncio.wait_for(self._queue.get(), timeout=self.heartbeat_s)
            except asyncio.TimeoutError:
                yield format_event("heartbeat", {})
                continue
            yield format_event(name, data)
            if name in FINAL_EVENTS:
                return
