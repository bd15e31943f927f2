"""What the schemathesis suites (`tests/api/test_openapi_conformance.py`,
`tests/reliability/test_api_fuzz.py`) share: the API's own schema, called in process through
the WSGI stack, with the test's database connection kept open and no rate limit in the way.
Import the fixtures into the test module (they are autouse there)."""

import pytest
import schemathesis

from oracle_site.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/openapi.json", application)


@pytest.fixture(autouse=True)
def keep_the_test_connection_open():
    """What Django's test client does: the WSGI handler would close the test's connection."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True)
def no_rate_limits(settings):
    for name in ("RATE_LIMIT_ASK_USER", "RATE_LIMIT_ASK_IP", "RATE_LIMIT_UPLOAD_USER", "RATE_LIMIT_UPLOAD_IP"):
        setattr(settings, name, "")
