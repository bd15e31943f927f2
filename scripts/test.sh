#!/usr/bin/env bash
# Runs the whole test suite (unit, integration and the slow end-to-end tests).
# DATABASE_URL chooses the database (SQLite under var/ by default).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh --test --browser
export OMP_WAIT_POLICY=PASSIVE
.venv/bin/lint-imports  # the layering contracts of pyproject.toml (docs/architecture.md)
exec .venv/bin/python -m pytest "$@"
