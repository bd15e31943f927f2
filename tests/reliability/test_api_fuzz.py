"""The public API, fuzzed from its own OpenAPI schema (schemathesis, in process through the
whole Django stack): whatever the input, no 500. Requests carry a signed-in admin's session
(with its CSRF token) or a player's Bearer token, so the handlers behind the auth are reached."""

import pytest
from django.test import Client
from hypothesis import HealthCheck, settings

from questions.models import ApiToken
from tests.factories import GameFactory, StaffFactory, UserFactory
from tests.support.schemathesis_stack import keep_the_test_connection_open, no_rate_limits, schema  # noqa: F401 (fixtures)

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


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_the_api_fail_with_a_server_error(case, credentials):
    for headers in (credentials["session"], credentials["token"]):
        response = case.call(headers=headers)
        if case.formatted_path == "/api/health" and response.status_code == 503:
            continue  # its documented answer when a component is down
        assert response.status_code < 500, f"{case.method} {case.formatted_path} → {response.status_code}: {response.text[:500]}"
