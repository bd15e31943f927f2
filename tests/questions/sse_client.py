"""Read server-sent events from a real HTTP response (httpx), as a browser's EventSource would."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass


@dataclass
class Event:
    name: str
    data: dict
    at: float  # time.monotonic() when it arrived


def iter_events(response):
    name, data = "message", []
    for line in response.iter_lines():
        if line == "":
            if data:
                yield Event(name, json.loads("\n".join(data)), time.monotonic())
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
