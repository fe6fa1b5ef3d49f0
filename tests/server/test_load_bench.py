"""Smoke test of ``bench/load_bench.py``, ``bench/transport_floor.py`` and ``bench/action_profile.py``:
each runs on a tiny workload and reports every figure, with no request refused and no connection
dropped. No timing is asserted (figures depend on the machine; they live in docs/benchmarks.md).
And the load generator's own WebSocket reading, which decides what those figures count."""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
import types
import zlib
from pathlib import Path

import pytest

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


WAITS = {
    "none": ([], None),
    "asleep": (["--gap", "0.5"], "0.5 ms asleep"),
    "spun": (["--gap", "0.5", "--spin"], "0.5 ms spun"),
}


@pytest.mark.parametrize("wait", WAITS)
def test_the_action_profile_measures_the_actions_it_was_asked_for(wait: str) -> None:
    """Back to back, or with a wait after each action whose own CPU is reported apart."""
    options, said = WAITS[wait]
    command = [
        sys.executable,
        str(BENCH / "action_profile.py"),
        "--tables",
        "2",
        "--actions",
        "60",
        "--warmup",
        "10",
    ]
    done = subprocess.run(command + options, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ms CPU per action" in done.stdout and "tables/ (issue 8)" in done.stdout
    if said is None:
        assert "after each batch" not in done.stdout
    else:  # the waits happened: they took some CPU of their own (waking, or spinning)
        assert f"{said} after each batch" in done.stdout
        waits = re.search(r"([0-9.]+) ms CPU per action in those waits", done.stdout)
        assert waits is not None and float(waits.group(1)) > 0, done.stdout


def test_the_load_generator_reads_frames_compressed_as_a_browser_asked() -> None:
    """``--offer-deflate`` measures a server that compresses for browsers (issue 8's baseline did):
    the generator must read what such a server sends, with and without context takeover."""
    load_bench = _load_bench()
    answers = (("permessage-deflate", False), ("permessage-deflate; server_no_context_takeover", True))
    for answer, fresh in answers:
        deflater = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        stream = bytearray()
        for text in (b'{"type":"event","n":1}', b'{"type":"event","n":1}'):
            body = (deflater.compress(text) + deflater.flush(zlib.Z_SYNC_FLUSH))[:-4]  # RFC 7692 §7.2.1
            stream += bytes([0xC1, len(body)]) + body  # FIN, RSV1, text
            if fresh:
                deflater = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        frames = load_bench.server_frames(stream)
        assert [opcode for opcode, _ in frames] == [load_bench.COMPRESSED | 1] * 2 and not stream
        seat = load_bench.Seat.__new__(load_bench.Seat)
        seat.inflater = None
        seat.accept_extensions(f"http/1.1 101 switching protocols\r\nsec-websocket-extensions: {answer}")
        assert [json.loads(seat.inflate(payload))["n"] for _, payload in frames] == [1, 1]
        assert seat.takeover is not fresh
    plain = load_bench.Seat.__new__(load_bench.Seat)
    plain.inflater = None
    plain.accept_extensions("http/1.1 101 switching protocols\r\nupgrade: websocket")
    assert plain.inflater is None  # the server declined (niugui serve does): frames come as they are


def test_the_load_generators_examples_hold() -> None:
    """Its docstrings' examples (framing, inflating), which the suite's doctests skip with bench/."""
    assert doctest.testmod(_load_bench()).failed == 0


def _load_bench() -> types.ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        import load_bench
    finally:
        sys.path.remove(str(BENCH))
    return load_bench


def test_the_capacity_bench_grows_a_live_server_and_reports_the_largest_load_held(tmp_path: Path) -> None:
    """``bench/capacity_bench.py`` on one node with a budget no loopback misses: 2 tables held, grown on
    the live server to 3 (the cap), held too; every window measured and written. No timing asserted."""
    report = tmp_path / "capacity.json"
    args = ["--nodes", "1", "--window", "1", "--start", "2", "--max-tables", "3", "--warmup", "0.5"]
    args += ["--budget-ms", "10000", "--json", str(report)]
    done = subprocess.run(
        [sys.executable, str(BENCH / "capacity_bench.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(report.read_text())["results"][0]
    assert [level["tables"] for level in result["levels"]] == [2, 3]
    assert all(level["held"] and len(level["windows"]) == 3 for level in result["levels"])
    assert result["largest_tables_held"] == 3 and result["tables_per_core"] == 3.0
    assert "RESULT nodes=1: 3 tables held" in done.stdout
