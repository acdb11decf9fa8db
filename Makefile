# botarena developer tasks. `make help` lists them.
# Needs only python3 (>= 3.11), node/npm and make: everything else is installed into
# .venv/ and node_modules/ by the targets themselves.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
INSTALL_STAMP := $(VENV)/.installed
BUF := node_modules/.bin/buf
# The Node client's modules (tests/node plays its bots); the stamp is redone when the lockfile changes.
NODE_CLIENT := clients/node/node_modules/.installed
# Our typed packages and the tests; generated code is checked only through its .pyi stubs.
TYPED := server/botarena clients/botarena bots/botarena scripts $(wildcard bench/*.py) tests

.PHONY: help install browser proto proto-check lint typecheck test demo ladder-demo cluster-demo bench check clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[1m%-12s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

install: $(INSTALL_STAMP) ## create .venv and install botarena with its dev extras (quick when nothing changed)

$(INSTALL_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "botarena needs Python >= 3.11, found " + sys.version.split()[0])'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

browser: ## install Debian's chromium for the browser tests where missing (root + apt-get), else say what is skipped
	@bash scripts/ensure_chromium.sh

$(BUF): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(NODE_CLIENT): clients/node/package.json clients/node/package-lock.json
	cd clients/node && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

proto: $(INSTALL_STAMP) ## regenerate Python code and typed stubs from proto/**/*.proto
	$(PY) scripts/gen_protos.py

proto-check: $(INSTALL_STAMP) ## fail if the committed generated code differs from the .proto files
	$(PY) scripts/gen_protos.py --check

typecheck: $(INSTALL_STAMP) ## mypy --strict on our packages and the tests
	$(BIN)/mypy $(TYPED)

lint: $(INSTALL_STAMP) $(BUF) ## ruff, ruff format --check, mypy --strict, buf lint, import-linter, proto-check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy $(TYPED)
	$(BUF) lint
	$(BUF) format --diff --exit-code
	$(BIN)/lint-imports
	$(PY) scripts/gen_protos.py --check

test: $(INSTALL_STAMP) $(NODE_CLIENT) browser ## run the test suite (tests/viewers in headless Chromium)
	$(BIN)/pytest

demo: $(INSTALL_STAMP) ## install, then play greedy vs random at Qwirkle on an embedded server
	$(BIN)/botarena match --game qwirkle --bot greedy --bot random --games 20 --concurrency 2 --seed 1 --out runs/demo --force

DURATION ?= 60
ladder-demo: $(INSTALL_STAMP) ## a ladder server with its web UI (URL printed), random and greedy connected for DURATION s (60), then the leaderboard
	$(PY) scripts/ladder_demo.py --duration $(DURATION)

cluster-demo: $(INSTALL_STAMP) ## a PostgreSQL, three ladder nodes, one killed mid-run: leaderboard, matches finished, moves/s, takeover
	$(PY) scripts/cluster_demo.py

bench: $(INSTALL_STAMP) ## run the benchmarks in bench/ (they print ratios; they never fail on speed)
	@for script in $(wildcard bench/bench_*.py); do echo "== $$script"; $(PY) $$script; done

check: lint test ## everything CI runs: lint, then the tests

clean: ## remove the virtualenv, node_modules and caches
	rm -rf $(VENV) node_modules .pytest_cache .mypy_cache .ruff_cache .hypothesis dist build
