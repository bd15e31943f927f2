"""« environ N min restantes »: static/oracle/ingest_estimate.js run under node (the job page
runs it in the browser)."""

import json
import shutil
import subprocess

import pytest

from ingest.estimates import act_rates
from tests.support.daphne import BASE_DIR

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
RATES = {"seconds_per_unit": {"read": 0.2, "ocr": 3.0, "chunk": 0.01, "hierarchy": 0.0, "context": 0.0, "embed": 0.5, "index": 0.0},
         "chunks_per_page": 4.0, "page_acts": ["read", "ocr", "chunk"]}
WORDS = {"minutes": "environ N min restantes", "oneMinute": "environ N min restante", "underMinute": "moins d'une minute restante"}


def run(acts: dict, pages: int) -> dict:
    module = (BASE_DIR / "static" / "oracle" / "ingest_estimate.js").as_uri()
    script = f"""
import {{ estimate, remainingText }} from {json.dumps(module)};
const result = estimate({json.dumps(acts)}, {json.dumps(RATES)}, {pages});
console.log(JSON.stringify({{...result, text: remainingText(result.remainingS, {json.dumps(WORDS)})}}));
"""
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_before_any_act_the_whole_ingestion_is_to_come_at_the_pace_of_earlier_jobs():
    result = run({}, pages=30)  # 30 pages × 0.2 s + 120 chunks × 0.5 s = 66 s (+ chunking)
    assert result["pending"] == ["read", "chunk", "hierarchy", "context", "embed", "index"]
    assert result["fraction"] == 0 and 66 <= result["remainingS"] <= 67
    assert result["text"] == "environ 2 min restantes"


def test_the_current_act_goes_at_its_own_pace_and_known_chunks_replace_the_guess():
    acts = {
        "read": {"state": "done", "done": 30, "total": 30, "elapsed": 10},
        "chunk": {"state": "done", "done": 30, "total": 30, "elapsed": 1},
        "hierarchy": {"state": "done", "done": 200, "total": 200, "elapsed": 1},
        "context": {"state": "done", "done": 200, "total": 200, "elapsed": 1},
        "embed": {"state": "progress", "done": 50, "total": 200, "elapsed": 50},  # 1 s per chunk here
    }
    result = run(acts, pages=30)
    assert result["pending"] == ["index"]
    assert result["remainingS"] == 150  # 150 chunks at this job's 1 s each, not the earlier 0.5 s
    assert result["fraction"] == pytest.approx(63 / 213, abs=0.001)
    assert result["text"] == "environ 3 min restantes"


def test_under_a_minute_and_one_minute_are_said_so():
    acts = {"read": {"state": "progress", "done": 9, "total": 10, "elapsed": 9}}
    assert run(acts, pages=10)["remainingS"] == pytest.approx(1 + 10 * 0.01 + 40 * 0.5)
    assert run(acts, pages=10)["text"] == "moins d'une minute restante"
    assert run({"read": {"state": "progress", "done": 1, "total": 61, "elapsed": 1}}, pages=0)["text"] == "environ 1 min restante"


@pytest.mark.django_db
def test_rates_come_from_finished_jobs_and_default_for_acts_none_ran():
    from ingest.models import IngestJob
    from tests.factories import IngestJobFactory

    IngestJobFactory(status=IngestJob.Status.DONE, stats={"pages": 10, "chunks": 50},
                     progress={"embed": {"done": 50, "total": 50, "elapsed": 40.0}, "read": {"done": 10, "total": 10, "elapsed": 1.0}})
    IngestJobFactory(status=IngestJob.Status.ERROR, progress={"embed": {"done": 1, "total": 50, "elapsed": 400.0}})

    rates = act_rates()

    assert rates["seconds_per_unit"]["embed"] == 0.8 and rates["seconds_per_unit"]["read"] == 0.1
    assert rates["seconds_per_unit"]["ocr"] == 3.0 and rates["chunks_per_page"] == 5.0 and rates["jobs"] == 1
