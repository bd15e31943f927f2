"""The test process's settings: production's (`oracle_site.settings`, read from the
environment), given the environment the suite needs.

The values below are set only while `oracle_site.settings` is read, and only where the
environment does not already say otherwise; servers the tests start in subprocesses get their
own environment (tests/support/daphne.py, tests/reliability/processes.py), not these.
"""

import os
from unittest import mock

TEST_ENVIRONMENT = {
    "SECRET_KEY": "tests-only-secret-key",
    "Q_SYNC": "true",  # ingestion tasks run inline (django-q2's documented way to test)
    "ASK_SETUP_THREADS": "0",  # ask lookups on the request's thread: they see the test's rows
    "STATIC_MANIFEST": "false",  # no collectstatic in tests
    "WHITENOISE_USE_FINDERS": "true",  # static files straight from static/
    "RATE_LIMIT_STORE": "memory",  # each test clears the counts (tests/conftest.py)
}

with mock.patch.dict(os.environ, {k: v for k, v in TEST_ENVIRONMENT.items() if k not in os.environ}):
    from oracle_site.settings import *  # noqa: F401,F403
