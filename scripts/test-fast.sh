#!/usr/bin/env bash
# The edit loop's tests: the import contracts, then every test not marked slow (no browser,
# no sshd, no daphne, no PostgreSQL: SQLite under var/), on both cores with pytest-xdist.
# PYTEST_WORKERS chooses the number of workers (default 2; 0 runs in one process).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh --test
unset DATABASE_URL
export OMP_WAIT_POLICY=PASSIVE
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"  # one embedder thread per worker: the workers use the cores
.venv/bin/lint-imports
exec .venv/bin/python -m pytest -m "not slow" -n "${PYTEST_WORKERS:-2}" --dist worksteal "$@"
