"""An LLM double for end-to-end tests of the ask flow: it implements the rag.llm.base
protocol and replays the text deltas of a recorded Claude Code stream-json answer
(`recorded/stream-json-success-partial.jsonl`), sleeping between deltas.

The real backends are tested against the real CLI elsewhere; this one only lets the web
process stream a slow, realistic answer. Configured from the environment so that a
`live_daphne` server can use it (see `replay_asgi.py`):
REPLAY_LLM_DELAY_S (pause before each delta), REPLAY_LLM_REPEAT (times the recording is
replayed), REPLAY_LLM_TEXT (an answer to stream word by word instead of the recording),
REPLAY_LLM_INTENT (what the classification call answers: `rules` unless told).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from rag.llm.base import HealthReport

RECORDING = Path(__file__).parent / "recorded" / "stream-json-success-partial.jsonl"


def recorded_deltas(path: Path = RECORDING) -> list[str]:
    deltas = []
    for line in path.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        inner = event.get("event", {}) if event.get("type") == "stream_event" else {}
        delta = inner.get("delta", {})
        if delta.get("type") == "text_delta":
            deltas.append(delta["text"])
    return deltas


class ReplayLLM:
    name = "replay"
    available = True

    def __init__(self, delay_s: float = 0.0, repeat: int = 1, text: str = "", intent: str = "rules"):
        self.delay_s = delay_s
        self.intent = intent
        deltas = re.findall(r"\S*\s*", text)[:-1] if text else recorded_deltas()
        self.deltas = deltas * repeat

    @classmethod
    def from_env(cls) -> "ReplayLLM":
        return cls(
            float(os.environ.get("REPLAY_LLM_DELAY_S", "0")),
            int(os.environ.get("REPLAY_LLM_REPEAT", "1")),
            os.environ.get("REPLAY_LLM_TEXT", ""),
            os.environ.get("REPLAY_LLM_INTENT", "rules"),
        )

    def stream(self, system, prompt, *, model="sonnet", timeout=None, images=()):
        for delta in self.deltas:
            time.sleep(self.delay_s)
            yield delta

    def complete(self, system, prompt, *, model="sonnet", timeout=None) -> str:
        # The classification call gets a label; any other call (HyDE) an empty text.
        return self.intent if "rules, synergy, meta" in system else ""

    def health(self) -> HealthReport:
        return HealthReport(status="ok", detail="replaying a recorded answer")
