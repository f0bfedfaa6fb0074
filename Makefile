# Two entry points for a fresh machine: `make run` (install + the offline default scenario)
# and `make test` (install + the whole test suite). Everything installs from requirements.lock,
# which pins every dependency with hashes.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PIP_VERSION := 26.3
TOO_OLD := error: agentified-assessment needs Python 3.10 or later; $(PYTHON) is %d.%d (set PYTHON=python3.11)

.PHONY: install run test lint typecheck bench interop-venv duckdb-venv amber lock clean distclean paper mutants \
	images images-smoke

$(STAMP): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(None if sys.version_info >= (3, 10) else "$(TOO_OLD)" % sys.version_info[:2])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q "pip==$(PIP_VERSION)"
	$(BIN)/python -m pip install -q --require-hashes -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/agentbeats run scenario.toml

# The paper's comparison (scenarios/folio/paper.toml): needs GEMINI_API_KEY, or LLM_MODEL (+ LLM_API_BASE for an
# OpenAI-compatible local server; keys: docs/white_agents.md, "The key rule"), and the cleaned FOLIO data
# (AGENTBEATS_DATA_DIR), all checked before any agent starts. Always writes results/paper.{json,html,md} and
# prints the comparison, then exits with the run's status (3 when a participant failed every item). Every model
# call is recorded in results/paper-record/ (replay: python -m green_agent.paper --run --replay results/paper-record).
paper: install
	$(BIN)/python -m green_agent.paper --run --output results/paper.json

# The a2a-sdk 0.3 peer for the interop tests, hash-pinned (tests/interop/requirements-a2a03.txt), in its own cached venv.
interop-venv:
	$(BIN)/python -m tests.interop.a2a03

# The oldest DuckDB the leaderboard queries support (1.1.x), hash-pinned, in its own cached venv.
duckdb-venv:
	$(BIN)/python -m tests.leaderboard.duckdb11

# The Amber CLI the tests check and compile the manifests with, at the version .ci/amber/package-lock.json
# pins (what .ci/run installs). Needs npm; without it `make test` stops here naming it (ALLOW_MISSING=1: go on,
# and the Amber tests skip, listed).
AMBER_BIN := .ci/amber/node_modules/.bin/amber
NO_NPM := make test needs npm (Node.js) to install the pinned Amber CLI (npm ci --prefix .ci/amber) that tests/amber runs: install Node.js and npm (apt: nodejs npm), or run make test ALLOW_MISSING=1 to skip those tests
amber:
	@if [ -x $(AMBER_BIN) ] && [ $(AMBER_BIN) -nt .ci/amber/package-lock.json ]; then :; \
	elif command -v npm >/dev/null 2>&1; then \
		echo "npm ci --prefix .ci/amber"; npm ci --prefix .ci/amber --ignore-scripts --no-audit --no-fund --loglevel=error; \
	elif [ -n "$(ALLOW_MISSING)" ]; then echo "warning: $(NO_NPM) (ALLOW_MISSING: going on)" >&2; \
	else echo "error: $(NO_NPM)" >&2; exit 1; fi

# The whole suite, with a coverage floor over both packages: a change that drops line coverage below
# COV_FLOOR percent fails the run. Measured 82% when the floor was set (code run in-process by the
# tests; child processes such as a spawned green agent are not counted); raise it as coverage grows.
# First it installs what the tests need beyond the lock (the Amber CLI, the a2a-sdk 0.3 and DuckDB 1.1
# venvs) and checks the rest (tests/prerequisites.py: Chromium, bubblewrap, setpriv, the E prover): a
# missing one stops it, named, with how to get it, instead of its tests skipping unseen; ALLOW_MISSING=1
# runs anyway. What this repository cannot install (FOLIO's files, the duplicates tool) is named and its
# tests skip; every skip is listed at the end (-rs).
# TEST_WORKERS pytest-xdist workers share the tests (most of the suite waits on servers and
# subprocesses, so more workers than cores pays); --dist loadscope keeps each module on one worker, so
# a module-scoped fixture (a real assessment) is built once. TEST_WORKERS=0 runs in this process.
# TEST_TIME_FACTOR (default 1) stretches every timing margin the tests keep, for slow machines.
COV_FLOOR ?= 80
TEST_WORKERS ?= 4
test: install interop-venv duckdb-venv amber
	$(BIN)/python -m tests.prerequisites $(if $(ALLOW_MISSING),--allow-missing)
	$(BIN)/python -m pytest -q -rs -n $(TEST_WORKERS) --dist loadscope --durations=15 \
		--cov=green_agent --cov=white_agents --cov-report=term:skip-covered --cov-fail-under=$(COV_FLOOR)

# The mutation check (docs/mutants.md): each mutant of tests/mutants/mutants.toml alone, with its area's
# tests; prints killed/survived per area and fails below 90% in any area. Not part of `make test` (slow).
mutants: install
	$(BIN)/python -m tests.mutants.runner

# The images with a local container engine, offline (docs/agentbeats.md, "Building and smoke-testing the images
# offline"). `make images` builds all 8, tagged as each Dockerfile's header says (agentified-green, ...), with
# --network host and nothing pulled; when the FROM tag (python:3.11.16-slim-bookworm) is absent it first builds a
# labelled Debian STAND-IN for it (debootstrap; never replaces a real image). IMAGES_ARGS=--no-cache rebuilds every
# layer. `make images-smoke` then runs the FOLIO green + reference containers as their users, completes an
# assessment against them and checks the results, the run dir, health and the sandbox's isolation in the
# autoformalizer image. Neither is part of `make test`: they need a running engine and take minutes.
images: install
	$(BIN)/python -m tests.images.build $(IMAGES_ARGS)

images-smoke: images
	$(BIN)/python -m tests.images.smoke

# ruff, and the layer contracts of pyproject.toml [tool.importlinter] (docs/architecture.md, Layout).
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

# mypy --strict over green_agent/ and white_agents/ (settings in pyproject.toml, [tool.mypy]).
typecheck: install
	$(BIN)/mypy

bench: install
	$(BIN)/python benchmarks/run_all.py

# Regenerate the hash-locked requirements after changing dependencies in pyproject.toml:
# requirements.lock (development and CI) holds every Python we support (3.10 and later: where a
# package has dropped 3.10, the lock pins an older release for it under a marker); -llm (LLM agents'
# images) and -runtime (green and reference images) are for the images' Python 3.11 only; -build is the build
# backend of pyproject's [build-system], which every image installs before building our package without isolation.
# The locks must pin an httpcore inside HTTPCORE_REQUIREMENT (green_agent/kit/client/linear_pool.py; a test checks):
# pyproject does not cap it, so when `make lock` picks a newer one, check its pool pass and widen the range, or keep the old pin.
LOCKFLAGS := --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 -q
lock:
	$(BIN)/python -m pip install -q uv
	$(BIN)/uv pip compile pyproject.toml --extra llm --extra dev --extra eprover --generate-hashes \
		--universal --python-version 3.10 -q -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml --extra llm $(LOCKFLAGS) -o requirements-llm.lock
	$(BIN)/uv pip compile pyproject.toml $(LOCKFLAGS) -o requirements-runtime.lock
	$(BIN)/python -c 'import sys; t = __import__("tomllib" if sys.version_info >= (3, 11) else "tomli"); print(*t.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")' | $(BIN)/uv pip compile - $(LOCKFLAGS) -o requirements-build.lock

# Run outputs only (journals, results); the virtual environment stays. `make distclean` removes it too.
clean:
	rm -rf runs results.json results.html

distclean: clean
	rm -rf $(VENV)
