# Two commands on a fresh machine: `make demo` (main job) and `make test` (the test suite).
VENV  := .venv
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# The client generator that tests/test_generated_client.py runs, in an environment of its own:
# it pins typer below the version the command line needs.
GENERATOR := $(VENV)/generador/bin/openapi-python-client
# axe-core, which the browser sweep runs on every page: the exact version pinned in
# tests/browser/axe/package-lock.json, installed by npm ci (not again while the lock is unchanged).
AXE := tests/browser/axe/node_modules/axe-core/axe.min.js

.PHONY: setup demo test lint bench docs lock

$(STAMP): pyproject.toml constraints.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[dev]'
	touch $(STAMP)

$(GENERATOR):
	python3 -m venv $(VENV)/generador
	$(VENV)/generador/bin/python -m pip install -q 'openapi-python-client==0.29.1'

$(AXE): tests/browser/axe/package-lock.json
	cd tests/browser/axe && npm ci --no-audit --no-fund --loglevel=error
	touch $(AXE)

setup: $(STAMP) $(GENERATOR) $(AXE)

# constraints.txt anew: the newest versions pyproject.toml admits, installed in an environment
# of their own (its comment lines kept); then `make test` says whether they pass.
LOCKENV := .venv-lock
lock:
	rm -rf $(LOCKENV)
	python3 -m venv $(LOCKENV)
	$(LOCKENV)/bin/python -m pip install -q --upgrade pip
	$(LOCKENV)/bin/python -m pip install -q -e '.[dev]'
	grep '^#' constraints.txt > constraints.txt.new
	$(LOCKENV)/bin/python -m pip freeze --exclude-editable >> constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCKENV)

demo: setup
	$(VENV)/bin/democratiza evaluar --programa geb-2017 examples/aceptaciones-geb-2017.csv \
		--oferta examples/oferta-geb-2017.yaml --salida salidas
	bash examples/primera-etapa.sh salidas
	bash examples/segunda-etapa.sh salidas
	bash examples/diseno-y-verificacion.sh salidas

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/mypy

# The suite on every core (pytest-xdist): each worker has its own PostgreSQL database, ports
# and temporary folders (tests/conftest.py); the tests marked xdist_group run in one worker.
test: lint
	$(VENV)/bin/pytest -q -n auto --dist loadgroup

bench: setup
	$(PY) benchmarks/bench_engine.py

docs: setup
	$(VENV)/bin/democratiza formato > docs/formato-aceptaciones.md

.PHONY: servir
servir: setup  # the web service on the embedded SQLite (DB=postgresql://… for PostgreSQL)
	$(VENV)/bin/democratiza servir $(if $(DB),--db $(DB),)
