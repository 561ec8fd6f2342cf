# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint format bench clean catalog catalog-template

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	bash fixtures/demo.sh

# One worker per core (tests are isolated: a SQLite file or PostgreSQL schema each).
test: $(STAMP)
	$(BIN)/pytest -n auto

BENCH_STAMP := $(VENV)/.bench-installed
BENCH_ARGS ?= --games 100000

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

SITE_BENCH_ARGS ?= --games 100000 --players 1000
TEAMS_BENCH_ARGS ?=

# The engine's targets, the site build against a rebuild, team balancing
# solve times: each prints its figures and its baseline.
bench: $(BENCH_STAMP)
	$(BIN)/python bench/bench.py $(BENCH_ARGS)
	$(BIN)/python bench/site.py $(SITE_BENCH_ARGS)
	$(BIN)/python bench/teams.py $(TEAMS_BENCH_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

# The message catalogs (ledger/locale): `make catalog` extracts every marked
# text into a template, merges it into each language's .po (translate the
# new entries there, then run it again) and compiles the .mo that run time
# reads. The compiled .mo is committed: an install needs no Babel.
LOCALE := ledger/locale
POT ?= $(VENV)/ledger.pot

catalog-template:
	PYTHONPATH=tools $(BIN)/pybabel -q extract -F babel.cfg -k NC_:1c,2 -k Message --no-location --sort-output \
		--project ledger -o $(POT) .

catalog: $(STAMP) catalog-template
	$(BIN)/pybabel -q update -i $(POT) -d $(LOCALE) -D ledger --no-fuzzy-matching \
		--ignore-obsolete --no-wrap
	$(BIN)/pybabel -q compile -d $(LOCALE) -D ledger --statistics

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) demo.db demo-site .pytest_cache .hypothesis
