# Tablée — the two set-up commands are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
HOST   ?= 127.0.0.1
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run run-scaled test install install-test migrate demo backup bench bench-load bench-faults lint e2e odds-deep extract clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	@touch $@

$(TEST_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	@touch $@ $(STAMP)

COMPILE_CATALOGUES = $(VENV)/bin/pybabel compile --use-fuzzy -d app/translations -D messages

install: $(STAMP)
	@$(COMPILE_CATALOGUES) >/dev/null

install-test: $(TEST_STAMP)
	@$(COMPILE_CATALOGUES) >/dev/null

migrate: install
	$(PY) -m app migrate

demo: migrate
	$(PY) -m app demo

## Create .venv, install, migrate, seed the demo once, serve on http://$(HOST):$(PORT)
run: demo
	$(PY) -m app serve --host $(HOST) --port $(PORT)

## N workers (WORKERS, default 4) on PostgreSQL + Redis on this machine, behind no proxy:
## http://$(HOST):$(PORT). PG_URL and REDIS_URL say which ones (docs/deploy.md).
WORKERS   ?= 4
PG_URL    ?= postgresql+psycopg://postgres@127.0.0.1:5432/tablee
REDIS_URL ?= redis://127.0.0.1:6379/0
METRICS_DIR ?= $(CURDIR)/var/prometheus
run-scaled: install
	@createdb -h 127.0.0.1 -U postgres $(lastword $(subst /, ,$(PG_URL))) 2>/dev/null || true
	TABLEE_DATABASE_URL=$(PG_URL) $(PY) -m app migrate
	rm -rf $(METRICS_DIR) && mkdir -p $(METRICS_DIR)
	TABLEE_DATABASE_URL=$(PG_URL) TABLEE_REDIS_URL=$(REDIS_URL) \
	  PROMETHEUS_MULTIPROC_DIR=$(METRICS_DIR) \
	  $(PY) -m app serve --host $(HOST) --port $(PORT) --workers $(WORKERS)

## Install the test extras and run the whole suite: unit, service and web tests, then the
## browser tests in Debian's Chromium (skipped, saying so, when it is not installed).
## One pytest process per core (pytest-xdist); TEST_WORKERS=0 runs everything in this one.
TEST_WORKERS ?= auto
test: install-test
	$(PY) -m pytest -q -m "not e2e" -n $(TEST_WORKERS)
	$(PY) -m pytest -q -m e2e tests/e2e -n $(TEST_WORKERS) --dist worksteal --reruns 1 -rR

e2e: install-test
	$(PY) -m pytest -q -m e2e tests/e2e -n $(TEST_WORKERS) --dist worksteal --reruns 1 -rR

## The odds checks with 100,000 seeded throws each instead of the suite's 25,000 (docs/odds.md
## § Checking a game's odds): before a change to a game's odds lands (~5 minutes).
odds-deep: install-test
	TABLEE_ODDS_RUNS=100000 $(PY) -m pytest -q tests/rules -k odds -n $(TEST_WORKERS)

bench: install-test
	$(PY) -m bench

## The load harness (docs/benchmarks.md § The load harness): 50/200/500 tables on SQLite,
## then on PostgreSQL + Redis with 2 and 4 workers (about 20 minutes; TABLEE_BENCH_PG names
## the database it empties), half the viewers on the table page's stream; under the table,
## the issue's aims with meets/misses (500 tables on SQLite: p99 < 100 ms, reconnections
## < 250 ms; 200 tables on 2 workers). Faults: make bench-faults.
bench-load: install-test
	$(PY) -m bench.load

## Faults during load (a worker killed, Redis and PostgreSQL restarted — private ones for
## those two): each scenario prints what it checked; exit 1 if a check fails (~3 minutes).
bench-faults: install-test
	$(PY) -m bench.faults

backup: install
	$(PY) -m app backup

lint: install-test
	$(VENV)/bin/ruff check app tests bench

## Re-extract the messages after changing user-facing text, then translate the .po files
extract: install-test
	$(VENV)/bin/pybabel extract -F babel.cfg -k _l -k N_ --no-location --sort-output \
	  -o app/translations/messages.pot .
	$(VENV)/bin/pybabel update -i app/translations/messages.pot -d app/translations -D messages --no-fuzzy-matching

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
