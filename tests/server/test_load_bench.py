"""Smoke test of ``bench/load_bench.py``, ``bench/transport_floor.py`` and ``bench/action_profile.py``:
each runs on a tiny workload and reports every figure, with no request refused and no connection
dropped. No timing is asserted (figures depend on the machine; they live in docs/benchmarks.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_load_bench_runs_a_few_tables_and_reports_every_figure() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "load_bench.py"),
            "--tables",
            "3",
            "--seconds",
            "2",
            "--warmup",
            "1",
            "--idle",
            "0.5",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["tables"] == 3 and result["connections"] == 12
    assert result["errors"] == 0 and result["dropped_connections"] == 0
    assert result["actions"] > 0
    assert result["deliveries"] >= 4 * (result["actions"] - 3)  # every client got every action
    figures = ("p50_ms", "p99_ms", "all4_p99_ms", "server_cpu_ms_per_action", "server_idle_cpu_percent")
    for key in (*figures, "server_kib_per_connection"):
        assert isinstance(result[key], float), key


def test_the_transport_floor_runs_a_few_tables_and_hears_every_delivery() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "transport_floor.py"), "--tables", "3", "--seconds", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = dict(field.split("=") for field in done.stdout.splitlines()[-1].split())
    assert figures["tables"] == "3" and int(figures["actions"]) > 0
    assert float(figures["server_cpu_ms_per_action"]) >= 0  # CPU time counts in 10 ms ticks: may be 0
    assert float(figures["all4_p99_ms"]) > 0  # a latency was measured: all four connections heard actions


def test_the_action_profile_measures_the_actions_it_was_asked_for() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "action_profile.py"),
            "--tables",
            "2",
            "--actions",
            "60",
            "--warmup",
            "10",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ms CPU per action" in done.stdout and "tables/ (issue 8)" in done.stdout
