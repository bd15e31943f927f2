.PHONY: run test test-fast test-postgres bench demo-pdfs

run:            ## install, migrate, load the demo, start web + workers (embedded default)
	scripts/run.sh

test:           ## the whole test suite on SQLite (an exported DATABASE_URL is ignored), both cores; needs PostgreSQL and Redis running (docs/testing.md)
	scripts/test.sh

test-fast:      ## the edit loop: import contracts + tests not marked slow (no browser, sshd, daphne, PostgreSQL; Redis running), both cores
	scripts/test-fast.sh

test-postgres:  ## the tests that use the database, on the PostgreSQL at 127.0.0.1:5432, but for the browser tests
	# The browser tests (tests/e2e) drive pages whose queries the API, page and service tests
	# run on PostgreSQL here; the SQLite pass runs them. Tests that never open the test database
	# (pytest-django refuses them access: pure Python, sshd, PDF files) ran in the SQLite pass
	# already and are deselected here (TESTS_DATABASE_ONLY, tests/conftest.py).
	TESTS_DATABASE_ONLY=1 DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/oracle} scripts/test.sh --ignore=tests/e2e

bench:          ## every benchmark of scripts/bench.py: ingest, retrieval, eval, cards, llm, bgg (prints figures; no pass/fail); ingest, retrieval, eval and cards read ../shared/eval-corpus
	scripts/install.sh --test && .venv/bin/python -m scripts.bench

demo-pdfs:      ## rebuild the demo rulebooks under games/demo/
	.venv/bin/python -m scripts.make_demo_pdfs
