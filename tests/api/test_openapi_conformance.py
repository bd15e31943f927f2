"""Every operation of the API, called from its own OpenAPI schema (schemathesis, in process
through the whole Django stack) as the admin, a player and a visitor: no 5xx, and every
answer — its status, content type, headers and body — is one the schema documents."""

import pytest
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from questions.models import ApiToken
from tests.factories import ExtensionFactory, GameFactory, IngestJobFactory, StaffFactory, UserFactory
from tests.support.schemathesis_stack import keep_the_test_connection_open, no_rate_limits, schema  # noqa: F401 (fixtures)

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance, response_schema_conformance]


@pytest.fixture
def callers(db):
    game = GameFactory(name="Heat")
    ExtensionFactory(game=game, name="Pluie")
    IngestJobFactory(game=game, status="done")
    _token, staff = ApiToken.issue(StaffFactory(username="schema-admin"))
    _token, player = ApiToken.issue(UserFactory(username="schema-player"))
    return [{"Authorization": f"Bearer {staff}"}, {"Authorization": f"Bearer {player}"}, {}]


@pytest.mark.slow  # about 1.5 min: CI runs it with the slow tests
@schema.parametrize()
@settings(max_examples=4, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_what_its_schema_says(case, callers):
    for headers in callers:
        response = case.call(headers=headers)
        if case.formatted_path == "/api/health" and response.status_code == 503:
            continue  # documented: a component is down in the test environment
        case.validate_response(response, checks=CHECKS)
