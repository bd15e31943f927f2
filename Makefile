.PHONY: run test test-fast test-postgres bench demo-pdfs

run:            ## install, migrate, load the demo, start web + workers (embedded default)
	scripts/run.sh

test:           ## the whole test suite on SQLite
	scripts/test.sh

test-fast:      ## the edit loop: import contracts + tests not marked slow (no browser, sshd, daphne, PostgreSQL), both cores
	scripts/test-fast.sh

test-postgres:  ## the suite on the PostgreSQL at 127.0.0.1:5432, but for the browser tests
	# The browser tests (tests/e2e) drive pages whose queries the API, page and service tests
	# run on PostgreSQL here; the SQLite pass runs them. This keeps CI under an hour.
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/oracle} scripts/test.sh --ignore=tests/e2e

bench:          ## ingestion and retrieval benchmarks (prints figures; no pass/fail)
	scripts/install.sh --test && .venv/bin/python -m scripts.bench

demo-pdfs:      ## rebuild the demo rulebooks under games/demo/
	.venv/bin/python -m scripts.make_demo_pdfs
