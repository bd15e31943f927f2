"""The public API, fuzzed from its own OpenAPI schema (schemathesis, in process through the
whole Django stack): whatever the input, no 500. Requests carry a signed-in admin's session
(with its CSRF token) or a player's Bearer token, so the handlers behind the auth are reached."""

import pytest
import schemathesis
from django.test import Client
from hypothesis import HealthCheck, settings

from oracle_site.wsgi import application
from questions.models import ApiToken
from tests.factories import GameFactory, StaffFactory, UserFactory

schema = schemathesis.openapi.from_wsgi("/api/openapi.json", application)
CSRF = "a" * 32  # the cookie and the header must match: any 32-character secret does


@pytest.fixture
def credentials(db):
    admin = StaffFactory(username="fuzz-admin")
    client = Client()
    client.force_login(admin)
    GameFactory(name="Heat")
    _token, key = ApiToken.issue(UserFactory(username="fuzz-player"))
    return {
        "session": {"Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF}", "X-CSRFToken": CSRF},
        "token": {"Authorization": f"Bearer {key}"},
    }


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


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_the_api_fail_with_a_server_error(case, credentials):
    for headers in (credentials["session"], credentials["token"]):
        response = case.call(headers=headers)
        if case.formatted_path == "/api/health" and response.status_code == 503:
            continue  # its documented answer when a component is down
        assert response.status_code < 500, f"{case.method} {case.formatted_path} → {response.status_code}: {response.text[:500]}"
