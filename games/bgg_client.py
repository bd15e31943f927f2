"""BoardGameGeek XML API2 client: game metadata (thing) and forums (forumlist, forum, thread).

Plain Python (httpx + ElementTree). BGG asks clients to serialise their calls and go
slowly: one call every `min_interval` seconds (5 s by default), a 202 ("accepted, try
later") or a 429 / 5xx is retried with a growing wait. With a `pace_file` the pacing holds
across the processes of a machine (the nightly sync in the worker, a `sync_bgg` typed meanwhile). Since late 2025 every call needs a
registered application token sent as `Authorization: Bearer …`; a 401 is not retried.
"""

from __future__ import annotations

import fcntl
import html
import logging
import re
import threading
import time
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

import httpx
import nh3

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://boardgamegeek.com/xmlapi2/"
RETRY_STATUSES = {202, 429, 500, 502, 503, 504}


class BggError(RuntimeError):
    """BGG did not give a usable answer (after retries)."""


class BggAuthError(BggError):
    """401: no token, or BGG refused it. Not retried: only the admin can fix it."""


class BggNotFound(BggError):
    """The id does not exist on BGG (BGG answers 200 with an error element or no item)."""


@dataclass(frozen=True)
class BggThing:
    id: int
    name: str
    year: int | None = None
    min_players: int | None = None
    max_players: int | None = None
    playing_time: int | None = None
    min_age: int | None = None
    mechanics: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    designers: tuple[str, ...] = ()
    image: str = ""  # the cover: an absolute http(s) URL, else empty
    thumbnail: str = ""

    def as_metadata(self) -> dict:
        return {
            "bgg_id": self.id,
            "name": self.name,
            "year_published": self.year,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "playing_time": self.playing_time,
            "min_age": self.min_age,
            "mechanics": list(self.mechanics),
            "categories": list(self.categories),
            "designers": list(self.designers),
            "image": self.image,
            "thumbnail": self.thumbnail,
        }


@dataclass(frozen=True)
class BggForum:
    id: int
    title: str
    num_threads: int = 0


@dataclass(frozen=True)
class BggThreadSummary:
    id: int
    subject: str
    num_articles: int = 0
    last_post_date: str = ""  # RFC 822, as BGG gives it: compared, never parsed


@dataclass(frozen=True)
class BggArticle:
    id: int
    username: str
    body: str  # plain text
    post_date: str = ""


@dataclass(frozen=True)
class BggThread:
    id: int
    subject: str
    link: str = ""
    articles: tuple[BggArticle, ...] = field(default_factory=tuple)


@dataclass
class BggClient:
    token: str
    base_url: str = DEFAULT_BASE_URL
    min_interval: float = 5.0
    max_attempts: int = 5
    timeout: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    pace_file: Path | None = None  # shared by every process that calls BGG (`shared_turn`)
    _last_call: float = field(default=float("-inf"), init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self):
        headers = {"User-Agent": "Oracle rules assistant"}
        if self.token:  # without one BGG answers 401, which is what the caller must see
            headers["Authorization"] = f"Bearer {self.token}"
        self._http = httpx.Client(base_url=self.base_url.rstrip("/") + "/", timeout=self.timeout, headers=headers)

    def close(self) -> None:
        self._http.close()

    def thing(self, thing_id: int) -> BggThing:
        root = self._get_xml("thing", {"id": thing_id})
        item = root.find("item")
        if item is None:
            raise BggNotFound(f"BGG has no thing {thing_id}")
        return parse_thing(item)

    def forums(self, thing_id: int) -> list[BggForum]:
        root = self._get_xml("forumlist", {"id": thing_id, "type": "thing"})
        return [
            BggForum(id=int(f.get("id")), title=f.get("title", ""), num_threads=_int(f.get("numthreads")) or 0)
            for f in root.iter("forum")
        ]

    def rules_forum(self, thing_id: int) -> BggForum | None:
        return next((f for f in self.forums(thing_id) if f.title.strip().lower() == "rules"), None)

    def forum_threads(self, forum_id: int, page: int = 1) -> list[BggThreadSummary]:
        root = self._get_xml("forum", {"id": forum_id, "page": page})
        return [
            BggThreadSummary(
                id=int(t.get("id")),
                subject=t.get("subject", ""),
                num_articles=_int(t.get("numarticles")) or 0,
                last_post_date=t.get("lastpostdate", ""),
            )
            for t in root.iter("thread")
        ]

    def recent_threads(self, forum_id: int, max_pages: int):
        """The forum's threads, most recently active first, over at most `max_pages` pages."""
        for page in range(1, max_pages + 1):
            threads = self.forum_threads(forum_id, page)
            if not threads:
                return  # BGG answers an empty <threads/> past the last page
            yield from threads

    def thread(self, thread_id: int) -> BggThread:
        root = self._get_xml("thread", {"id": thread_id})
        if root.tag != "thread":
            raise BggNotFound(f"BGG has no thread {thread_id}")
        return parse_thread(root)

    def _get_xml(self, endpoint: str, params: dict) -> ET.Element:
        text = self._get(endpoint, params)
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            raise BggError(f"BGG {endpoint} returned something that is not XML: {text[:120]!r}") from exc
        if root.tag == "error" or root.find("error") is not None:
            message = root.findtext("message") or root.findtext("error/message") or root.get("message", "")
            raise BggNotFound(f"BGG {endpoint} {params}: {message or 'error'}")
        return root

    def _get(self, endpoint: str, params: dict) -> str:
        """GET with BGG's pacing: one call at a time, `min_interval` apart, retries with backoff."""
        for attempt in range(1, self.max_attempts + 1):
            response = self._paced_get(endpoint, params)
            if response.status_code == 200:
                return response.text
            if response.status_code == 401:
                raise BggAuthError(f"BGG refused the token (401): {response.text.strip()[:160]}")
            if response.status_code not in RETRY_STATUSES:
                raise BggError(f"BGG {endpoint} answered HTTP {response.status_code}")
            wait = self._backoff(attempt, response)
            log.info("BGG %s answered %s; retrying in %.1f s", endpoint, response.status_code, wait)
            self.sleep(wait)
        raise BggError(f"BGG {endpoint} still answered HTTP {response.status_code} after {self.max_attempts} tries")

    def _paced_get(self, endpoint: str, params: dict) -> httpx.Response:
        with self._lock, shared_turn(self.pace_file) as last_elsewhere:
            # another process's last call, by the wall clock: capped, so a clock set back never waits longer
            wait_elsewhere = min(self.min_interval, last_elsewhere + self.min_interval - time.time())
            wait = max(self._last_call + self.min_interval - time.monotonic(), wait_elsewhere)
            if wait > 0:
                self.sleep(wait)
            try:
                return self._http.get(endpoint, params=params)
            except httpx.HTTPError as exc:
                raise BggError(f"BGG {endpoint} unreachable: {exc}") from exc
            finally:
                self._last_call = time.monotonic()

    def _backoff(self, attempt: int, response: httpx.Response) -> float:
        retry_after = _int(response.headers.get("Retry-After"))
        if retry_after is not None:
            return float(retry_after)
        return self.min_interval * 2 ** (attempt - 1)


@contextmanager
def shared_turn(path: Path | None):
    """One BGG call at a time across processes: holds `path`'s lock for the call, yields the
    wall-clock time the last call through `path` ended (-inf: none yet, or no `path`) and
    records this one's end."""
    if path is None:
        yield float("-inf")
        return
    with open(path, "a+", encoding="utf-8") as handle:  # the lock goes with the file's closing
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        try:
            last = float(handle.read().strip() or "-inf")
        except ValueError:  # a torn or foreign file: as if no call was made
            last = float("-inf")
        try:
            yield last
        finally:
            handle.truncate(0)
            handle.write(repr(time.time()))


def parse_thing(item: ET.Element) -> BggThing:
    def value(tag: str) -> int | None:
        node = item.find(tag)
        return _int(node.get("value")) if node is not None else None

    def links(kind: str) -> tuple[str, ...]:
        return tuple(link.get("value", "") for link in item.iter("link") if link.get("type") == kind)

    primary = next((n for n in item.iter("name") if n.get("type") == "primary"), item.find("name"))
    return BggThing(
        id=int(item.get("id")),
        name=primary.get("value", "") if primary is not None else "",
        year=value("yearpublished"),
        min_players=value("minplayers"),
        max_players=value("maxplayers"),
        playing_time=value("playingtime"),
        min_age=value("minage"),
        mechanics=links("boardgamemechanic"),
        categories=links("boardgamecategory"),
        designers=links("boardgamedesigner"),
        image=_web_url(item.findtext("image")),
        thumbnail=_web_url(item.findtext("thumbnail")),
    )


def _web_url(text: str | None) -> str:
    """An absolute http(s) URL as BGG gives it, else "": the home page puts it in an <img>,
    where a `javascript:` or relative address has no place."""
    url = (text or "").strip()
    try:
        parts = urlsplit(url)
    except ValueError:  # « http://[ »: not an address
        return ""
    return url if parts.scheme in ("http", "https") and parts.netloc and not re.search(r"\s", url) else ""


def parse_thread(root: ET.Element) -> BggThread:
    articles = tuple(
        BggArticle(
            id=int(a.get("id")),
            username=a.get("username", ""),
            body=markup_to_text(a.findtext("body") or ""),
            post_date=a.get("postdate", ""),
        )
        for a in root.iter("article")
    )
    return BggThread(
        id=int(root.get("id")),
        subject=(root.findtext("subject") or "").strip(),
        link=root.get("link", ""),
        articles=articles,
    )


def thread_text(thread: BggThread, max_chars: int) -> str:
    """The question and its answers, in order, cut at `max_chars`."""
    lines = [thread.subject]
    lines += [f"{article.username} : {article.body}" for article in thread.articles if article.body]
    text = "\n\n".join(lines)
    if len(text) > max_chars:
        text = text[: max_chars - 1].rsplit(" ", 1)[0] + "…"
    return text


def post_time(rfc822: str) -> datetime:
    """A thread's `lastpostdate` as a time, to sort threads by activity (unreadable: oldest)."""
    try:
        return parsedate_to_datetime(rfc822).astimezone(timezone.utc)
    except (TypeError, ValueError, IndexError):
        return datetime.min.replace(tzinfo=timezone.utc)


_BREAK_RE = re.compile(r"<\s*(br|/p|/div|/li|/blockquote)\s*/?\s*>", re.IGNORECASE)
_BLANK_RE = re.compile(r"[ \t]+")
_LINES_RE = re.compile(r"\n{3,}")


def markup_to_text(body: str) -> str:
    """BGG article bodies are HTML (already XML-unescaped by the parser): keep the words."""
    with_breaks = _BREAK_RE.sub("\n", body)
    text = html.unescape(nh3.clean(with_breaks, tags=set()))
    text = _BLANK_RE.sub(" ", text)
    return _LINES_RE.sub("\n\n", "\n".join(line.strip() for line in text.splitlines())).strip()


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None
