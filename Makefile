# Interlock: `make run` serves the app, `make test` runs every check, `make bench` benchmarks.
#
# Steps are skipped when their inputs have not changed since the last time (stamp files):
#   .venv/.installed             pip install, redone when pyproject.toml or constraints.txt change
#   client-web/node_modules/.installed   npm ci, redone when package(-lock).json change
#   client-web/dist/.built       npm run build, redone when a client source file changes
#   tests/agui/node/node_modules/.installed   npm ci of the AG-UI client the tests run under Node

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

CLIENT := client-web
CLIENT_DEPS := $(CLIENT)/node_modules/.installed
CLIENT_BUILT := $(CLIENT)/dist/.built
# Every client file except installed packages and build output; empty without a client.
CLIENT_SOURCES := $(if $(wildcard $(CLIENT)/package.json),$(shell find $(CLIENT) \
	\( -name node_modules -o -name dist -o -name test-results -o -name playwright-report \) \
	-prune -o -type f -print))

PG_HOST := 127.0.0.1
PG_PORT := 5432
PG_TEST_URL := postgresql+psycopg://postgres@$(PG_HOST):$(PG_PORT)/test

CHROMIUM := /usr/bin/chromium
# Lint only the source folders that exist (bench/ arrives later).
LINT_PATHS := $(wildcard server tests bench)
# apt-get needs root; use sudo when not root.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: help run test bench install client client-test chromium lint agui-client

help:
	@echo "make run    install, build the web client, serve on http://127.0.0.1:8000"
	@echo "make test   install, build, lint (ruff), type-check (mypy), pytest"
	@echo "make bench  install, run bench/run.py"

run: install client
	$(BIN)/interlock serve

test: install client chromium agui-client lint client-test
	@if [ -n "$${INTERLOCK_TEST_POSTGRES_URL:-}" ]; then \
		echo "PostgreSQL tests use INTERLOCK_TEST_POSTGRES_URL from the environment"; \
	elif command -v pg_isready >/dev/null && pg_isready -q -h $(PG_HOST) -p $(PG_PORT); then \
		echo "PostgreSQL reachable at $(PG_HOST):$(PG_PORT): storage/API tests run on SQLite and PostgreSQL"; \
		export INTERLOCK_TEST_POSTGRES_URL=$(PG_TEST_URL); \
	else \
		echo "PostgreSQL not reachable at $(PG_HOST):$(PG_PORT): storage/API tests run on SQLite only"; \
	fi; \
	$(BIN)/pytest

bench: install
	$(BIN)/python bench/run.py

lint: install
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy

# --- Python -----------------------------------------------------------------------------------

install: $(INSTALLED)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install -c constraints.txt -e '.[dev]'
	touch $@

# --- Web client (skipped while client-web/package.json does not exist) -------------------------

ifneq ($(wildcard $(CLIENT)/package.json),)
client: $(CLIENT_BUILT)

$(CLIENT_DEPS): $(CLIENT)/package.json $(wildcard $(CLIENT)/package-lock.json)
	cd $(CLIENT) && if [ -f package-lock.json ]; then npm ci; else npm install; fi
	touch $@

# The build may generate API types with `interlock openapi`: it needs the Python install and is
# redone when the API package changes.
API_SOURCES := $(shell find server/interlock/api -name '*.py' 2>/dev/null)

$(CLIENT_BUILT): $(CLIENT_SOURCES) $(API_SOURCES) $(CLIENT_DEPS) $(INSTALLED)
	cd $(CLIENT) && npm run build
	mkdir -p $(@D) && touch $@

client-test: $(CLIENT_DEPS)
	cd $(CLIENT) && npm test
else
client client-test:
	@echo "No $(CLIENT)/package.json: web client build and tests skipped"
endif

# --- The official AG-UI client, run under Node by tests/agui ------------------------------------

AGUI_NODE := tests/agui/node
AGUI_NODE_DEPS := $(AGUI_NODE)/node_modules/.installed

agui-client: $(AGUI_NODE_DEPS)

$(AGUI_NODE_DEPS): $(AGUI_NODE)/package.json $(AGUI_NODE)/package-lock.json
	cd $(AGUI_NODE) && npm ci --no-audit --no-fund
	touch $@

# --- Browser for the end-to-end tests ----------------------------------------------------------

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
		echo "Installing Debian's chromium (for the browser tests)"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	fi
