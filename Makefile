# Two commands for a newcomer: `make run` and `make test`. Each sets up what it needs itself.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup run test lint bench

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/niugui replay examples/sample-game.json

lint: $(STAMP)
	$(VENV)/bin/ruff check niugui tests bench
	$(VENV)/bin/mypy

test: lint
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) bench/engine_bench.py
