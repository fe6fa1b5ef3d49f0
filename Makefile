# Two commands for a newcomer: `make run` and `make test`. Each sets up what it needs itself.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup run play replay test lint browser bench

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,env]'
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/niugui serve

replay: $(STAMP)
	$(VENV)/bin/niugui replay examples/sample-game.json

lint: $(STAMP)
	$(VENV)/bin/ruff check niugui tests bench
	$(VENV)/bin/mypy

play: $(STAMP)
	$(VENV)/bin/niugui play

# The browser tests drive Debian's Chromium; this installs it (and a CJK font) when missing.
browser:
	sh scripts/ensure-chromium.sh

test: lint browser
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) bench/engine_bench.py
