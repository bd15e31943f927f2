"""One polite HTTP client per source: requests spaced by `min_interval_s`, answers cached on
disk for `cache_ttl_s` (a re-run of the sync reads nothing twice in a day), a clear error
when the site is down, refuses us, answers something we cannot read, or answers nothing to
store (`NoData`). Cached answers older than their use are pruned (`prune_cache`)."""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

import httpx

T = TypeVar("T")

USER_AGENT = "Oracle rules assistant (self-hosted; meta sync once a day)"


class MetaSourceError(RuntimeError):
    """The source could not be read (network, HTTP status)."""


class SiteChanged(MetaSourceError):
    """The source answered, but not in the shape this connector knows: its pages changed."""


class NoData(MetaSourceError):
    """The source answered in its usual shape, with nothing worth storing (17Lands' `[]` for an
    unknown or misspelt set): a failure of that target, never cached, never stored over what
    an earlier run read."""


@dataclass
class PoliteClient:
    base_url: str
    min_interval_s: float = 2.0
    cache_dir: Path | None = None
    cache_ttl_s: float = 20 * 3600.0
    timeout_s: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    _last: float = field(default=0.0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self):
        self._client = httpx.Client(
            base_url=self.base_url.rstrip("/"), timeout=self.timeout_s, follow_redirects=True,
            headers={"User-Agent": USER_AGENT},
        )

    def close(self) -> None:
        self._client.close()

    def get_text(self, path: str, params: dict | None = None, read: Callable[[str], T] = str) -> T:
        """The page at `path`, or what `read` makes of it. The page is cached only once `read`
        accepted it: a page it refuses (`SiteChanged`: a maintenance page served with a 200, a
        changed layout) is asked again by the next sync, not replayed for `cache_ttl_s`; a
        cached page the connector no longer reads is dropped and fetched again. The same goes
        for `NoData`: an empty answer is asked again, not replayed."""
        url = str(self._client.build_request("GET", path, params=params).url)
        cached = self._cached(url)
        if cached is not None:
            try:
                return read(cached)
            except (SiteChanged, NoData):
                self._forget(url)
        text = self._get(path, params, url).text
        found = read(text)
        self._store(url, text)
        return found

    def _get(self, path: str, params: dict | None, url: str) -> httpx.Response:
        with self._lock:  # one request at a time per source, spaced
            wait = self._last + self.min_interval_s - time.monotonic()
            if wait > 0:
                self.sleep(wait)
            try:
                response = self._client.get(path, params=params)
            except httpx.HTTPError as exc:
                raise MetaSourceError(f"{url}: {exc.__class__.__name__}: {exc}") from exc
            finally:
                self._last = time.monotonic()
        if response.status_code >= 400:
            raise MetaSourceError(f"{url}: HTTP {response.status_code}")
        return response

    def _cache_file(self, url: str) -> Path | None:
        if self.cache_dir is None:
            return None
        return Path(self.cache_dir) / hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]

    def _cached(self, url: str) -> str | None:
        path = self._cache_file(url)
        if path is None or not path.exists() or time.time() - path.stat().st_mtime > self.cache_ttl_s:
            return None
        return path.read_text(encoding="utf-8")

    def prune_cache(self) -> int:
        """Delete the cached answers older than `cache_ttl_s`: they are never read again (a
        deck or an event page of last month), and the folder would only grow."""
        if self.cache_dir is None or not Path(self.cache_dir).is_dir():
            return 0
        too_old, pruned = time.time() - self.cache_ttl_s, 0
        for path in Path(self.cache_dir).iterdir():
            try:  # another game's sync may be pruning the same folder
                if path.is_file() and path.stat().st_mtime < too_old:
                    path.unlink()
                    pruned += 1
            except FileNotFoundError:
                continue
        return pruned

    def _forget(self, url: str) -> None:
        path = self._cache_file(url)
        if path is not None:
            path.unlink(missing_ok=True)

    def _store(self, url: str, text: str) -> None:
        path = self._cache_file(url)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
