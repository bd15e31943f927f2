#!/usr/bin/env bash
# Runs the whole test suite: the import contracts, then every test, slow or not, on both cores
# (pytest-xdist, work stealing so that one long test does not leave a core idle). One worker
# more than cores (three on two): the slow tests wait a quarter of their time on the servers, browsers and
# processes they start, and a core left to one of them would sit idle (docs/testing.md). The slow
# end-to-end tests (real servers, browser, sshd) run alongside the others: each binds a free
# port, owns a tmp folder and a test database per worker, and a Redis database per worker.
# SQLite under var/, whatever DATABASE_URL the shell exports (one exported for a production server
# must not receive the test databases), unless the PostgreSQL pass is asked for: TESTS_DATABASE_ONLY=1
# keeps the tests that use the database, and only then does DATABASE_URL choose it (make test-postgres,
# which .ci/run runs after make test). Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh --test --browser
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # nproc obeys OMP_NUM_THREADS, set below
# One worker per core on the database-only pass: it has no browser tests to wait on, and the
# database server shares the cores (a third worker made it slower; docs/testing.md).
workers=$(( cores + 1 ))
if [[ "${TESTS_DATABASE_ONLY:-}" =~ ^(1|true)$ ]]; then workers=$cores; else unset DATABASE_URL; fi
export OMP_WAIT_POLICY=PASSIVE
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"  # one embedder/OCR thread per worker: the workers use the cores
.venv/bin/lint-imports  # the layering contracts of pyproject.toml (docs/architecture.md)
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-$workers}" --dist worksteal "$@"
