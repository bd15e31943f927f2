"""The ingestions list reads each job's game and booklet with the jobs: as many queries for 30
jobs as for 5."""

import pytest

from tests.factories import ExtensionFactory, IngestJobFactory
from tests.support.queries import page_queries

pytestmark = pytest.mark.django_db


def add_jobs(n: int) -> None:
    """Ingestions of expansions (named by their extension, which names its game) and of base rules."""
    for _ in range(n):
        extension = ExtensionFactory()
        IngestJobFactory(game=extension.game, extension=extension, booklet_kind="extension")
        IngestJobFactory()


def test_the_ingestions_list_reads_as_many_queries_for_30_jobs_as_for_5(client, alice):
    client.force_login(alice)
    add_jobs(5)
    with_5 = page_queries(client, "/admin/ingest/ingestjob/")

    add_jobs(25)

    assert page_queries(client, "/admin/ingest/ingestjob/") == with_5
