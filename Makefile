# trace2task: `make demo` and `make test` are all a newcomer needs (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DAGSTER_HOME_DIR := $(CURDIR)/.dagster_home
PYTEST_WORKERS ?= 2

.PHONY: install demo test test-hourly ui bench bench-scale soundness eval-scrub eval-classify mutation conformance-samples clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: install
	$(BIN)/trace2task demo

test: install
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup -m "not hourly"

# A day by hour (a run for each of its 14 hours holding records, then the day's) with the multiprocess executor
# on PostgreSQL against the daily run (several minutes).
test-hourly: install
	$(BIN)/pytest -n 0 -m hourly

ui: install
	mkdir -p $(DAGSTER_HOME_DIR)
	test -f $(DAGSTER_HOME_DIR)/dagster.yaml || cp dagster.yaml $(DAGSTER_HOME_DIR)/dagster.yaml
	DAGSTER_HOME=$(DAGSTER_HOME_DIR) $(BIN)/dagster dev -w workspace.yaml -h 127.0.0.1 -p 3000

bench: install
	$(BIN)/python -m bench.run

# One day of SESSIONS sessions (and of SESSIONS/10) end to end: memory, time, seconds per stage (bench/README.md).
SESSIONS ?= 100000
bench-scale: install
	$(BIN)/python -m bench.scale --sessions $(SESSIONS)

# Drafted-task soundness on tau-bench data under two schemas (bench/soundness.py; needs ../shared).
soundness: install
	$(BIN)/python -m bench.soundness

# Mutation testing of the judging modules (not part of `make test`; long: run it in the background).
mutation: install
	$(BIN)/python -m pip install --quiet -e '.[mutation]'
	$(BIN)/python tests/mutation/score.py

eval-scrub: install
	$(BIN)/python -m scrubbers.evaluation
	$(BIN)/python -m scrubbers.gold
	$(BIN)/python -m scrubbers.transcripts
	$(BIN)/python -m scrubbers.transcripts_tau2
	$(BIN)/python -m scrubbers.phone_examples

eval-classify: install
	$(BIN)/python -m taskgen.evaluation

# Producers that cannot share the test environment: each in a throwaway virtual environment,
# its output committed as a small sample under tests/conformance/samples/ (see its README).
conformance-samples:
	set -e; for producer in openllmetry-0.40; do \
	  venv=$$(mktemp -d /tmp/trace2task-conformance-XXXXXX); \
	  $(PYTHON) -m venv $$venv; \
	  $$venv/bin/python -m pip install --quiet -r tests/conformance/requirements-$$producer.txt; \
	  $$venv/bin/python tests/conformance/producers/drive.py $${producer%%-*} tests/conformance/samples/$$producer; \
	  rm -rf $$venv; \
	done

clean:
	rm -rf out demo .trace2task .dagster_home mutants
