"""How many SQL queries a page costs, for the tests that check it does not grow with its rows."""

from django.db import connection
from django.test.utils import CaptureQueriesContext


def page_queries(client, url: str) -> int:
    """The queries of GET `url` (200), asked twice: the first request fills Django's
    content-type cache, the second is counted."""
    client.get(url)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)
