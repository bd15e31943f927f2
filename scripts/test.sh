#!/usr/bin/env bash
# Runs the whole test suite: the import contracts, then every test not marked slow on both
# cores (pytest-xdist), then the slow end-to-end tests (real servers, browser, sshd) one at a
# time, since they start processes and bind ports of their own.
# DATABASE_URL chooses the database (SQLite under var/ by default). Arguments go to both runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh --test --browser
export OMP_WAIT_POLICY=PASSIVE
.venv/bin/lint-imports  # the layering contracts of pyproject.toml (docs/architecture.md)
status=0
OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" .venv/bin/python -m pytest -m "not slow" -n "${PYTEST_WORKERS:-2}" "$@" || status=$?
.venv/bin/python -m pytest -m slow "$@" || status=$?
exit "$status"
