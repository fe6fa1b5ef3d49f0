"""Smoke test of ``bench/engine_bench.py``: it runs on a tiny workload and reports every field.

No timing is asserted: figures depend on the machine. The benchmark's figures live in docs/benchmarks.md.
"""

from __future__ import annotations

import importlib.util
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "engine_bench.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("engine_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def has_rlcard() -> bool:
    return importlib.util.find_spec("rlcard") is not None


def test_tiny_run_reports_every_field() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", "6", "--rounds", "2", "--hands", "2", "--repeats", "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"^machine: .+, \d+ cores; Python 3\.\d+", out, re.M)
    row = re.search(r"^niugui\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)
    assert row, out
    games, decisions = int(row[1]), int(row[2])
    assert games == 6 and decisions >= games  # every game takes several decisions
    for label in ("legal_plays()", "legal_combos()", "plays(hand)"):
        assert re.search(rf"^  {re.escape(label)}.* [\d.]+ us ", out, re.M), label
    if has_rlcard():
        assert re.search(r"^rlcard\s+6\s+\d+", out, re.M), out
        ratio = r"^ratio niugui/rlcard decisions/s: [\d.]+x \(target >= 5x: (met|NOT met)\)$"
        assert re.search(ratio, out, re.M), out
    else:
        assert "rlcard: not importable here" in out


def test_bad_option_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--games", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "must be positive" in done.stderr and "Traceback" not in done.stderr


def test_random_games_are_reproducible_and_complete() -> None:
    bench = load_bench()
    first = bench.niugui_games(3, random.Random(5))
    assert first == bench.niugui_games(3, random.Random(5))
    assert first > 3 * 20  # a game of 54 cards takes more than 20 decisions


@pytest.mark.skipif(not has_rlcard(), reason="rlcard (the bench extra) is not installed")
def test_rlcard_games_are_played_to_the_end() -> None:
    bench = load_bench()
    assert bench.rlcard_games(2, random.Random(5)) > 2 * 5
