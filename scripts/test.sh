#!/usr/bin/env bash
# Runs the whole test suite: the import contracts, then every test, slow or not, on both cores
# (pytest-xdist, work stealing so that one long test does not leave a core idle). One worker
# more than cores (three on two): the slow tests wait a quarter of their time on the servers, browsers and
# processes they start (the cores sat 27 % idle with two workers, 10 % with three: the SQLite
# pass took 13 min 2 s, then 10 min 0 s; docs/testing.md). The slow
# end-to-end tests (real servers, browser, sshd) run alongside the others: each binds a free
# port, owns a tmp folder and a test database per worker, and a Redis database per worker.
# DATABASE_URL chooses the database (SQLite under var/ by default); TESTS_DATABASE_ONLY=1 keeps
# the tests that use the database (make test-postgres). Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh --test --browser
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # nproc obeys OMP_NUM_THREADS, set below
export OMP_WAIT_POLICY=PASSIVE
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"  # one embedder/OCR thread per worker: the workers use the cores
.venv/bin/lint-imports  # the layering contracts of pyproject.toml (docs/architecture.md)
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-$(( cores + 1 ))}" --dist worksteal "$@"
