# trace2task: `make demo` and `make test` are all a newcomer needs (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DAGSTER_HOME_DIR := $(CURDIR)/.dagster_home
PYTEST_WORKERS ?= 2

.PHONY: install demo test ui bench eval-scrub clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: install
	$(BIN)/trace2task demo

test: install
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup

ui: install
	mkdir -p $(DAGSTER_HOME_DIR)
	test -f $(DAGSTER_HOME_DIR)/dagster.yaml || cp dagster.yaml $(DAGSTER_HOME_DIR)/dagster.yaml
	DAGSTER_HOME=$(DAGSTER_HOME_DIR) $(BIN)/dagster dev -w workspace.yaml -h 127.0.0.1 -p 3000

bench: install
	$(BIN)/python -m bench.run

eval-scrub: install
	$(BIN)/python -m scrubbers.evaluation

clean:
	rm -rf out demo .trace2task .dagster_home
