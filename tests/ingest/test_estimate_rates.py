"""The rates the time-left estimate starts from: seconds per unit an act actually computed."""

import pytest

from ingest.estimates import act_rates
from ingest.models import IngestJob
from tests.factories import IngestJobFactory

pytestmark = pytest.mark.django_db


def done_job(progress: dict, **stats) -> IngestJob:
    return IngestJobFactory(status=IngestJob.Status.DONE, progress=progress, stats={"pages": 6, "chunks": 24, **stats})


def test_a_re_run_whose_vectors_all_came_from_the_cache_does_not_speed_up_the_embedding_rate():
    done_job({"embed": {"done": 24, "total": 24, "elapsed": 12.0}}, embedding={"embedded": 24, "from_cache": 0})
    done_job({"embed": {"done": 24, "total": 24, "elapsed": 0.015}}, embedding={"embedded": 0, "from_cache": 24})

    assert act_rates()["seconds_per_unit"]["embed"] == 0.5  # not (12 + 0.015) / 48


def test_a_partly_cached_act_counts_the_units_it_computed():
    done_job({"embed": {"done": 24, "total": 24, "elapsed": 6.0}, "ocr": {"done": 6, "total": 6, "elapsed": 8.0}},
             embedding={"embedded": 12, "from_cache": 12}, ocr={"pages_ocr": 6, "from_cache": 2})

    rates = act_rates()["seconds_per_unit"]

    assert rates["embed"] == 0.5 and rates["ocr"] == 2.0


def test_with_only_cached_runs_the_defaults_hold_and_older_jobs_without_the_stats_count_whole():
    done_job({"ocr": {"done": 6, "total": 6, "elapsed": 0.01}}, ocr={"pages_ocr": 6, "from_cache": 6})
    done_job({"embed": {"done": 10, "total": 10, "elapsed": 7.0}})  # before the embedding stats existed

    rates = act_rates()["seconds_per_unit"]

    assert rates["ocr"] == 3.0 and rates["embed"] == 0.7
