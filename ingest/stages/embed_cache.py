"""The embedding stage's resumable cache: one vector per distinct text, so a job that is
killed, fails later, pauses for quota or is re-run after a re-upload re-embeds nothing it
already embedded (embedding is ~90 % of an offline ingestion).

`INGEST_CACHE_DIR/embeddings-v1-<slug>-<embedder>.bin` is append-only: a header (magic and
the vectors' dimension, so an HTTP embedder's size need not be known before its first
answer), then records of the text's SHA-256 (32 bytes) and its float32 vector, written
after every batch. A kill during a
write leaves at most a partial last record, which the next load cuts off. The embedder's name
is part of the file name: another model's vectors are never reused.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import numpy as np

CACHE_VERSION = "embeddings-v1"
KEY_BYTES = 32
MAGIC = b"OEC1"
HEADER_BYTES = 8  # MAGIC + uint32 little-endian dimension


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def cache_path(cache_dir: Path, slug: str, embedder_name: str) -> Path:
    model = hashlib.sha1(embedder_name.encode("utf-8")).hexdigest()[:10]
    return Path(cache_dir) / f"{CACHE_VERSION}-{slug}-{model}.bin"


class EmbeddingCache:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.dim = 0  # from the file's header, or from the first vectors put
        self.vectors: dict[bytes, np.ndarray] = {}
        self._lock = threading.Lock()
        self._load()

    @property
    def record_bytes(self) -> int:
        return KEY_BYTES + 4 * self.dim

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except OSError:
            return
        if len(data) < HEADER_BYTES or data[:4] != MAGIC:
            self.path.unlink(missing_ok=True)  # not ours, or cut before its header: start again
            return
        self.dim = int.from_bytes(data[4:HEADER_BYTES], "little")
        body = len(data) - HEADER_BYTES
        whole = HEADER_BYTES + body - body % self.record_bytes
        if whole != len(data):
            with open(self.path, "r+b") as handle:  # a write cut by a kill: drop its remains
                handle.truncate(whole)
        for start in range(HEADER_BYTES, whole, self.record_bytes):
            key = data[start : start + KEY_BYTES]
            self.vectors[key] = np.frombuffer(data, dtype="<f4", count=self.dim, offset=start + KEY_BYTES).astype(np.float32)

    def get(self, text: str) -> np.ndarray | None:
        return self.vectors.get(text_key(text))

    def put_many(self, texts: list[str], matrix: np.ndarray) -> None:
        matrix = np.asarray(matrix, dtype=np.float32)
        if matrix.size == 0 or (self.dim and matrix.shape[-1] != self.dim):
            return  # another size than the file's: never mix them
        records = []
        for text, vector in zip(texts, matrix):
            key = text_key(text)
            if key not in self.vectors:
                self.vectors[key] = np.asarray(vector, dtype=np.float32)
                records.append(key + np.asarray(vector, dtype="<f4").tobytes())
        if not records:
            return
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.dim:
                self.dim = matrix.shape[-1]
                self.path.write_bytes(MAGIC + self.dim.to_bytes(4, "little"))
            with open(self.path, "ab") as handle:
                handle.write(b"".join(records))
