"""Component checks behind `GET /api/health`: each returns status, latency and detail."""

import time
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from runtime import components


@dataclass
class Check:
    status: str  # ok | down | degraded | disabled
    latency_ms: float | None = None
    detail: str = ""
    backend: str = ""

def _timed(fn) -> Check:
    start = time.perf_counter()
    try:
        check = fn()
    except Exception as exc:  # a health check reports every failure, whatever its kind
        return Check(status="down", latency_ms=_ms(start), detail=f"{type(exc).__name__}: {exc}")
    check.latency_ms = _ms(start)
    return check


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def check_database() -> Check:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return Check(status="ok", backend=connection.vendor)


def check_vector_store() -> Check:
    from games.models import Chunk

    store = components.vector_store()
    store.ping()
    missing = []
    for collection in Chunk.objects.filter(indexed=True).order_by().values_list("collection", flat=True).distinct():
        if not store.has_collection(collection):
            missing.append(collection)
    if missing:
        return Check(
            status="down",
            backend=store.description,
            detail=f"collections missing from the index: {', '.join(sorted(missing))}; run `manage.py reindex`",
        )
    return Check(status="ok", backend=store.description, detail=f"{len(store.collections())} collections")


def check_job_queue() -> Check:
    from django_q.brokers import get_broker
    from django_q.status import Stat

    broker = get_broker()
    if not broker.ping():
        return Check(status="down", detail="broker unreachable")
    clusters = Stat.get_all(broker=broker)
    backend = "redis" if settings.REDIS_URL else "orm"
    if not clusters:
        stuck = _stuck_jobs()
        waiting = f"; {stuck} job(s) waiting for it" if stuck else ""
        return Check(status="degraded", backend=backend, detail=f"no worker cluster running (start `manage.py qcluster`){waiting}")
    detail = f"{len(clusters)} cluster(s), {broker.queue_size()} queued"
    stuck = _stuck_jobs()
    if stuck:
        return Check(status="degraded", backend=backend, detail=f"{detail}, {stuck} stuck (their task claimed or lost by a stopped cluster; the sweep releases them)")
    return Check(status="ok", backend=backend, detail=detail)


def _stuck_jobs() -> int:
    from ingest.recovery import find_stuck_jobs

    return len(find_stuck_jobs())


def check_embedder() -> Check:
    embedder = components.embedder()
    embedder.embed_query("santé")
    from games.models import Chunk

    stale = Chunk.objects.exclude(embedder="").exclude(embedder=embedder.name).count()
    if stale:
        return Check(
            status="degraded",
            backend=embedder.name,
            detail=f"reindex needed: {stale} chunks were embedded by another model (`manage.py reindex --reembed`)",
        )
    return Check(status="ok", backend=embedder.name)


def check_llm() -> Check:
    backend = components.llm_backend()
    report = backend.health()
    return Check(status=report.status, backend=backend.name, detail=report.detail)


BGG_OVERDUE_AFTER = timedelta(hours=26)  # a daily run, and 2 h of leeway


def check_bgg() -> Check:
    """Never down for a missing token: BGG is optional, the detail says why sync is off.
    Degraded when the last run had a failure, or is over a day old (no cluster ran it)."""
    from games import bgg_sync

    if reason := bgg_sync.disabled_reason():
        return Check(status="disabled", backend="bgg", detail=reason)
    last = bgg_sync.last_run()
    hour = f"daily at {settings.BGG_FORUM_SYNC_HOUR:02d}:00"
    if last is None:
        return Check(status="ok", backend="bgg", detail=f"forum sync {hour}; not run yet")
    problems = [f"{r['game']}: {r['error']}" for r in last["reports"] if r.get("error")]
    problems += _overdue(last["at"], BGG_OVERDUE_AFTER)
    status = "degraded" if problems else "ok"
    return Check(status=status, backend="bgg", detail=f"forum sync {hour}; last run {last['at']}. {'; '.join(problems)}".strip())


def check_meta() -> Check:
    """The meta sources' scheduled syncs (MTGTop8, 17Lands), like `bgg`: disabled when none is
    configured or the schedules are off, degraded when a game's last run had errors or is
    older than its period (daily or weekly) and 2 h."""
    from games import meta_sync

    slugs = meta_sync.configured_slugs()
    if not slugs:
        return Check(status="disabled", backend="meta", detail="no meta source configured (META_SYNC_MTGTOP8, META_SYNC_17LANDS)")
    if not settings.META_SYNC_ENABLED:
        return Check(status="disabled", backend="meta", detail="schedules off (META_SYNC_ENABLED=false); `manage.py sync_meta` runs on demand")
    runs = meta_sync.last_runs(slugs)
    lines, problems = [], []
    for slug in slugs:
        line, found = _meta_game(slug, runs.get(slug))
        lines.append(line)
        problems += [f"{slug}: {problem}" for problem in found]
    detail = "; ".join(lines) + (". " + "; ".join(problems) if problems else "")
    return Check(status="degraded" if problems else "ok", backend="meta", detail=detail)


def _meta_game(slug: str, run: dict | None) -> tuple[str, list[str]]:
    """One game's line of the `meta` detail, and what is wrong with its last run."""
    from django_q.models import Schedule

    from games import meta_schedule

    period = "weekly" if meta_schedule.frequency(slug) == Schedule.WEEKLY else "daily"
    when = f"{slug} {period} at {settings.META_SYNC_HOUR:02d}:00"
    if run is None:
        return f"{when}: not run yet", []
    line = f"{when}: last run {run['at']}, {run['decks']} decklists, {run['ratings']} rating sets"
    return line, run["errors"] + _overdue(run["at"], meta_schedule.overdue_after(slug))


def _overdue(at: str, after: timedelta) -> list[str]:
    """The problem of a last run older than `after`: the schedule did not run (no cluster?)."""
    if timezone.now() - datetime.fromisoformat(at) <= after:
        return []
    return [f"the last run is over {after.total_seconds() / 3600:.0f} h old: is `manage.py qcluster` running?"]


def check_lexicon() -> Check:
    """Degraded without FreeDict: questions in the other language than a booklet then search
    it with the game-rules glossary's translations only."""
    words = components.lexicon()
    if not words.dictionaries:
        return Check(
            status="degraded",
            backend="glossary",
            detail=f"no FreeDict dictionary in {settings.BILINGUAL_DICTIONARY_DIR}: "
            "install dict-freedict-fra-eng and dict-freedict-eng-fra for searches across languages",
        )
    return Check(status="ok", backend="glossary+" + "+".join(words.dictionaries), detail=f"{len(words)} entries")


CHECKS = {
    "database": check_database,
    "vector_store": check_vector_store,
    "job_queue": check_job_queue,
    "embedder": check_embedder,
    "lexicon": check_lexicon,
    "llm": check_llm,
    "bgg": check_bgg,
    "meta": check_meta,
}


def run_checks() -> dict[str, dict]:
    return {name: asdict(_timed(fn)) for name, fn in CHECKS.items()}


def public(check: dict) -> dict:
    """A component as anyone may see it: its status, latency and the backend's kind, never
    a detail (paths under var/, backend errors) nor where the backend lives: « edge
    /…/var/qdrant/edge » → « edge », « tei@http://10.0.0.5:8080 » → « tei », a path → nothing."""
    return {
        "status": check.get("status", ""),
        "latency_ms": check.get("latency_ms"),
        "detail": "",
        "backend": public_backend(check.get("backend") or ""),
    }


def public_backend(backend: str) -> str:
    kind = backend.strip().split(" ", 1)[0].split("@", 1)[0]
    if kind.startswith(("/", "~", ".")) or "\\" in kind or "://" in kind:
        return ""
    return kind
