"""A small JSON cache per booklet for the LLM stages (contexts, conflicts): written every
few answers and flushed before a quota error propagates, so a resumed job only asks what
was not answered yet (docs/architecture.md, decisions)."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Iterable


def booklet_cache_files(
    cache_dir: Path, slug: str, versions: Iterable[str], vector_versions: Iterable[str] = ()
) -> list[Path]:
    """The files the stages cache for one booklet under their cache `versions` (each stage's
    CACHE_VERSION), with the `.tmp` of a save cut short, and the vector caches of
    `vector_versions` (one `.bin` per embedder): what a cancelled ingestion leaves."""
    files = []
    for version in versions:
        path = Path(cache_dir) / f"{version}-{slug}.json"
        files += [path, path.with_suffix(".tmp")]
    for version in vector_versions:
        files += sorted(Path(cache_dir).glob(f"{version}-{slug}-*.bin"))
    return files


def text_key(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


class JsonCache:
    def __init__(self, path: Path, save_every: int = 10):
        self.path = Path(path)
        self.save_every = save_every
        self._lock = threading.Lock()
        self._unsaved = 0
        try:
            self.data: dict = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.data = {}

    def get(self, key: str):
        with self._lock:
            return self.data.get(key)

    def __len__(self) -> int:
        return len(self.data)

    def put(self, key: str, value) -> None:
        with self._lock:
            self.data[key] = value
            self._unsaved += 1
            if self._unsaved >= self.save_every:
                self._save()

    def flush(self) -> None:
        with self._lock:
            if self._unsaved:
                self._save()

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, ensure_ascii=False))
        tmp.replace(self.path)
        self._unsaved = 0
