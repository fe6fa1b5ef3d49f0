"""Smoke test of ``bench/env_bench.py``: it runs on a tiny workload and reports every figure.

No timing is asserted: figures depend on the machine; docs/env.md quotes a measured run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from env_helpers import EXTRA

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "env_bench.py"


def test_tiny_run_reports_every_figure() -> None:
    pytest.importorskip("pettingzoo", reason=EXTRA)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--episodes", "2"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    for figure in ("import", "decode:", "encode:", "observe", "steps/s", "against random", "against expert"):
        assert figure in done.stdout, (figure, done.stdout)
