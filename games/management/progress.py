"""A one-line progress bar for management commands (no extra dependency)."""

import sys
import time


class ProgressBar:
    def __init__(self, label: str, total: int | None = None, stream=None, width: int = 30):
        self.label, self.total, self.width = label, total, width
        self.stream = stream or sys.stderr
        self.started = time.perf_counter()

    def update(self, done: int, total: int | None = None) -> None:
        total = total or self.total
        elapsed = time.perf_counter() - self.started
        rate = done / elapsed if elapsed else 0.0
        if total:
            filled = int(self.width * done / total)
            bar = "█" * filled + "·" * (self.width - filled)
            line = f"\r{self.label} [{bar}] {done}/{total} ({rate:.0f}/s)"
        else:
            line = f"\r{self.label} {done} ({rate:.0f}/s)"
        self.stream.write(line)
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()
