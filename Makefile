# Two commands for a newcomer: `make run` and `make test`. Each sets up what it needs itself, with the
# exact versions of requirements.lock (docs/dependencies.md: how the lock is made and moved forward).
VENV   := .venv
PY     := $(VENV)/bin/python
UV     := $(VENV)/bin/uv
STAMP  := $(VENV)/.installed
LOCK   := requirements.lock
# uv installs and resolves the lock; its own version is pinned here, the one thing pip installs.
UV_VERSION := 0.13.9
# What the lock covers: the package, its `dev`, `env` and `ray` extras, for every Python from 3.11 on.
LOCK_ARGS  := pyproject.toml --extra dev --extra env --extra ray --universal --python-version 3.11 --generate-hashes \
              --no-header --output-file $(LOCK)

HOST ?= 127.0.0.1
PORT ?= 8000
DATA ?= niugui-data

.PHONY: setup run play replay test lint lock-check browser bench lock upgrade

$(UV):
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q uv==$(UV_VERSION)

# Exactly the lock (sync removes what it does not list), then niugui itself, editable, without deps.
$(STAMP): $(LOCK) pyproject.toml | $(UV)
	$(UV) pip sync -q --python $(PY) $(LOCK)
	$(UV) pip install -q --python $(PY) --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/niugui serve --host $(HOST) --port $(PORT) --data $(DATA)

replay: $(STAMP)
	$(VENV)/bin/niugui replay examples/sample-game.json

lint: $(STAMP)
	$(VENV)/bin/ruff check niugui tests bench scripts
	$(VENV)/bin/mypy

play: $(STAMP)
	$(VENV)/bin/niugui play

# Prints the lock's hash and every installed version; fails when one differs from the lock.
lock-check: $(STAMP)
	$(PY) scripts/lock_check.py

# The browser tests drive Debian's Chromium; this installs it (and a CJK font) when missing.
browser:
	sh scripts/ensure-chromium.sh

test: lock-check lint browser
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) bench/engine_bench.py

# Re-resolve the lock from pyproject.toml, keeping today's versions where they still fit.
lock: | $(UV)
	$(UV) pip compile -q $(LOCK_ARGS)

# Move every package to the newest version pyproject.toml allows, then run the whole suite on it.
upgrade: | $(UV)
	$(UV) pip compile -q --upgrade $(LOCK_ARGS)
	$(MAKE) test
