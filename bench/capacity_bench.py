"""Capacity of ``niugui serve``: the most tables (four clients each, one action per table per second)
at which the all-four p99 stays under a budget (50 ms) in three measuring windows in a row, on one
node and on two (issue 32 item 6; docs/benchmarks.md, "Capacity: tables per core").

    .venv/bin/python bench/capacity_bench.py --json /tmp/capacity.json            # the full run
    nice -n 19 .venv/bin/python bench/capacity_bench.py --window 5 --start 20     # a short check

The clients, the servers and the measurement are :mod:`load_bench`'s (imported, not copied): ``1``
in ``--nodes`` is plain ``niugui serve`` on SQLite, ``2`` two cluster nodes on Redis and PostgreSQL
with every table's seats spread over both (``load_bench.py --nodes 2``).

The search, per node count: a level is a number of tables; it holds when ``--windows`` (3)
consecutive windows of ``--window`` seconds (60) each have all-four p99 < ``--budget-ms``, at least
``--min-rate`` of the offered actions acknowledged (the load was really carried), no request refused
and no connection dropped; its first failing window ends it (a level that cannot be seated fails).
From ``--start`` the load grows by ``--growth`` (×1.5) while levels hold, then the gap between the
last level held and the first that failed is halved until it is within ``--resolution`` (10 %) of
the former. The servers keep running from one level to the next while the load only grows (the new
tables are seated on the live servers, then ``--warmup`` seconds pass before the first window);
after a failure, or to go down, they are started afresh (a new data directory; for two nodes a new
schema and key prefix).

Tables per core = the largest level held / the server processes' cores, counted as one per node: a
node's event loop is one thread (its writer, dealer and pool threads take a few per cent more, which
the server CPU column shows). Redis and PostgreSQL are not counted as cores; for two nodes Redis's
CPU is shown beside. The load generator shares the machine: its CPU and its own loop's lag are
printed per window, so a stall of the instrument is seen rather than charged to the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import load_bench
from cluster_setup import Backing
from load_bench import Bench, Seat, Window

CLIENTS = 4
"""Clients per table (every seat taken: the game starts when the fourth sits)."""


@dataclass
class Live:
    """Servers with tables playing on them, grown level by level."""

    args: argparse.Namespace
    servers: list[subprocess.Popen[bytes]]
    ports: list[int]
    backing: Backing | None
    bench: Bench
    seats: list[Seat] = field(default_factory=list)
    loops: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def tables(self) -> int:
        return len(self.loops)

    @classmethod
    async def start(cls, args: argparse.Namespace, nodes: int) -> Live:
        backing = None
        extra: list[list[str]] = [[]]
        if nodes > 1:
            backing = Backing(args.pg, args.redis).__enter__()
            extra = [backing.node_args(i) for i in range(nodes)]
        ports = [load_bench.free_port() for _ in extra]
        servers = [load_bench.start_server(args, port, extra[i], i == 0) for i, port in enumerate(ports)]
        live = cls(args, servers, ports, backing, Bench(args))
        try:
            await load_bench.wait_healthy(ports)
        except BaseException:
            await live.close()
            raise
        return live

    async def grow(self, tables: int) -> None:
        """Seat tables until there are ``tables`` playing, then let them warm up."""
        gc.unfreeze()  # the load generator's objects so far: frozen again below with the new ones
        seats, groups, _ = await load_bench.seat_tables(
            self.bench, self.ports, tables - self.tables, self.tables
        )
        self.seats += seats
        load_bench.quiet_collector()
        self.loops += [asyncio.create_task(self.bench.table_loop(g, math.inf)) for g in groups]
        await asyncio.sleep(self.args.warmup)

    async def window(self, seconds: float) -> dict[str, Any]:
        redis0 = self.backing.redis_cpu() if self.backing else 0.0
        window = Window(self.bench, self.servers)
        await asyncio.sleep(seconds)
        figures = window.result()
        if self.backing:
            figures["redis_cpu_percent"] = round(
                100 * (self.backing.redis_cpu() - redis0) / figures["seconds"], 1
            )
        return figures

    async def close(self) -> None:
        for task in self.loops:
            task.cancel()
        await asyncio.gather(*self.loops, return_exceptions=True)
        self.bench.closing = True
        for seat in self.seats:
            if seat.transport is not None:
                seat.transport.close()
        load_bench.stop_servers(self.servers)
        for server in self.servers:  # the data directory start_server made
            command = [str(part) for part in server.args] if isinstance(server.args, list) else []
            if "--data" in command:
                shutil.rmtree(command[command.index("--data") + 1], ignore_errors=True)
        if self.backing:
            self.backing.__exit__(None, None, None)
        gc.unfreeze()
        gc.enable()
        gc.collect()


def verdict(figures: dict[str, Any], tables: int, args: argparse.Namespace) -> str:
    """'pass', or why the window failed."""
    reasons = []
    if not figures["all4_p99_ms"] < args.budget_ms:  # NaN (nothing delivered) fails too
        reasons.append(f"all4 p99 {figures['all4_p99_ms']} ms ≥ {args.budget_ms:g}")
    if figures["actions_per_s"] < args.min_rate * tables:
        reasons.append(f"{figures['actions_per_s']} actions/s < {args.min_rate:g} × {tables}")
    if figures["errors"]:
        reasons.append(f"{figures['errors']} refused")
    if figures["dropped_connections"]:
        reasons.append(f"{figures['dropped_connections']} dropped")
    return "; ".join(reasons) or "pass"


def next_level(passed: int | None, failed: int | None, current: int, args: argparse.Namespace) -> int | None:
    """The next load to try, or None when the search is done.

    >>> args = argparse.Namespace(growth=1.5, resolution=0.1, max_tables=5000)
    >>> next_level(100, None, 100, args), next_level(150, 225, 225, args), next_level(205, 225, 205, args)
    (150, 187, None)
    >>> next_level(None, 20, 20, args), next_level(None, 1, 1, args), next_level(5000, None, 5000, args)
    (10, None, None)
    """
    if failed is None:  # still growing
        grown = max(current + 1, int(current * args.growth))
        return None if current >= args.max_tables else min(grown, args.max_tables)
    low = passed or 0
    if failed - low <= max(1, args.resolution * low):
        return None
    return (low + failed) // 2


async def search(args: argparse.Namespace, nodes: int) -> dict[str, Any]:
    """Every level tried on ``nodes`` nodes, and the largest that held."""
    levels: list[dict[str, Any]] = []
    passed: int | None = None
    failed: int | None = None
    live: Live | None = None
    level: int | None = args.start
    try:
        while level is not None:
            fresh = live is None or level <= live.tables or not levels or not levels[-1]["held"]
            if fresh:
                if live is not None:
                    await live.close()
                live = None
                live = await Live.start(args, nodes)
            assert live is not None
            started = time.perf_counter()
            record: dict[str, Any] = {"tables": level, "fresh_start": fresh, "held": False, "windows": []}
            try:
                await live.grow(level)
            except Exception as error:  # the servers could not seat this load: the level fails
                record["seating_error"] = repr(error)[:500]
                print(
                    f"# nodes={nodes} tables={level}: seating failed: {record['seating_error']}", flush=True
                )
                await live.close()
                live = None
            else:
                took = time.perf_counter() - started
                how = "afresh" if fresh else "on the live servers"
                print(
                    f"# nodes={nodes} tables={level}: seated {how}, {took:.0f} s with the warm-up", flush=True
                )
                record["windows"] = await windows(live, level, args)
                record["held"] = len(record["windows"]) == args.windows and all(
                    w["verdict"] == "pass" for w in record["windows"]
                )
            held = record["held"]
            levels.append(record)
            print(f"nodes={nodes} tables={level}: {'HELD' if held else 'FAILED'}", flush=True)
            if held:
                passed = level if passed is None else max(passed, level)
            else:
                failed = level if failed is None else min(failed, level)
            level = next_level(passed, failed, level, args)
    finally:
        if live is not None:
            await live.close()
    largest = passed or 0
    return {
        "nodes": nodes,
        "server_cores": nodes,
        "largest_tables_held": largest,
        "first_tables_failed": failed,
        "tables_per_core": round(largest / nodes, 1),
        "levels": levels,
    }


async def windows(live: Live, tables: int, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Up to ``--windows`` windows in a row at this load; the first that fails is the last."""
    measured = []
    for number in range(1, args.windows + 1):
        figures = await live.window(args.window)
        figures["verdict"] = verdict(figures, tables, args)
        measured.append(figures)
        print(window_line(len(live.servers), tables, number, figures), flush=True)
        if figures["verdict"] != "pass":
            break
    return measured


def window_line(nodes: int, tables: int, number: int, w: dict[str, Any]) -> str:
    redis = f" redis_cpu={w['redis_cpu_percent']}%" if "redis_cpu_percent" in w else ""
    return (
        f"nodes={nodes} tables={tables} window={number} all4_p50={w['all4_p50_ms']}ms "
        f"all4_p99={w['all4_p99_ms']}ms actions/s={w['actions_per_s']} server_cpu={w['server_cpu_percent']}%"
        f"{redis} client_cpu={w['client_cpu_percent']}% client_lag_p99={w['client_lag_p99_ms']}ms "
        f"load={w['load_average_before']}→{w['load_average_after']} {w['verdict']}"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2], help="1: plain serve; 2+: a cluster")
    parser.add_argument("--window", type=float, default=60.0, help="seconds of one measuring window")
    parser.add_argument("--windows", type=int, default=3, help="consecutive windows a level must hold")
    parser.add_argument("--budget-ms", type=float, default=50.0, help="all-four p99 must stay under it")
    parser.add_argument("--start", type=int, default=100, help="tables of the first level")
    parser.add_argument("--growth", type=float, default=1.5, help="factor from a level held to the next")
    parser.add_argument("--resolution", type=float, default=0.1, help="bisect until within this share")
    parser.add_argument("--max-tables", type=int, default=20000, help="stop growing here")
    parser.add_argument("--min-rate", type=float, default=0.95, help="share of the offered actions")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds after seating, not measured")
    parser.add_argument("--json", metavar="PATH", help="write every level's windows and the result there")
    parser.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--server-arg", dest="server_args", action="append", default=[],
                        help="an extra argument for niugui serve (repeat as needed)")  # fmt: skip
    return parser


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.window <= 0 or args.windows < 1 or args.start < 1 or args.max_tables < args.start:
        parser.error("--window > 0, --windows ≥ 1 and 1 ≤ --start ≤ --max-tables")
    if args.growth <= 1 or not 0 < args.resolution < 1 or not 0 < args.min_rate <= 1:
        parser.error("--growth > 1, 0 < --resolution < 1 and 0 < --min-rate ≤ 1")
    if any(n < 1 for n in args.nodes):
        parser.error("--nodes counts server processes: 1 or more")


def commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=load_bench.ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": commit(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "cpu": platform.processor()},
        "settings": {k: v for k, v in vars(args).items() if k in SETTINGS},
        "results": [],
    }
    for nodes in args.nodes:
        result = await search(args, nodes)
        report["results"].append(result)
        print(
            f"RESULT nodes={nodes}: {result['largest_tables_held']} tables held "
            f"(first failed: {result['first_tables_failed']}), {result['tables_per_core']} tables per core",
            flush=True,
        )
        if args.json:  # written after each node count, so a long run that is stopped keeps what it found
            Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    report["ended_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return report


SETTINGS = [
    "nodes",
    "window",
    "windows",
    "budget_ms",
    "start",
    "growth",
    "resolution",
    "max_tables",
    "min_rate",
    "warmup",
    "server_args",
]
"""The options of this script (the rest of ``args`` are load_bench's, at their defaults)."""


def main() -> int:
    parser = build_parser()
    args = parser.parse_args()
    check(parser, args)
    # load_bench's own options at their defaults (no profiling, protocol 2), with this run's
    args = argparse.Namespace(**{**vars(load_bench.build_parser().parse_args([])), **vars(args)})
    load_bench._use_uvloop()
    print(f"# niugui capacity bench on {os.cpu_count()} cores; client and servers share them", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main_async(args))
        return 0
    return 130


if __name__ == "__main__":
    sys.exit(main())
