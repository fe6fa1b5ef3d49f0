"""Load benchmark of ``niugui serve``: N tables × 4 WebSocket clients on loopback, one action per second
per table; latency from an action to its broadcast, server CPU and memory per connection.

    nice -n 10 .venv/bin/python bench/load_bench.py --tables 100 --seconds 30

It starts the server itself (SQLite in a temporary data directory) as a child process, signs up 4N
guests, seats four clients at each table (the game starts when all four sit), and then, at each
table, the client whose turn it is acts once per second (its weakest legal play, or a pass when it
may). Latency is measured for every (action, recipient) pair: from the moment the actor sends
``play``/``pass`` to the moment each of the four clients receives the matching event, all in this
one process (one clock). Server CPU is read from /proc over the measuring window; memory per
connection is the growth of the server's RSS from idle to all clients connected, divided by 4N.

The load generator runs on the same machine and competes with the server for the same cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def proc_rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def handle_buckets(text: str) -> dict[float, float]:
    """The server's ``niugui_handle_seconds`` histogram: cumulative count per upper bound."""
    buckets = {}
    for line in text.splitlines():
        if line.startswith("niugui_handle_seconds_bucket"):
            bound = line.split('le="')[1].split('"')[0]
            buckets[float("inf") if bound == "+Inf" else float(bound)] = float(line.rsplit(" ", 1)[1])
    return buckets


def bucket_quantile(before: dict[float, float], after: dict[float, float], q: float) -> float:
    """Upper bound (ms) of the histogram bucket holding quantile ``q`` of the requests in between."""
    deltas = sorted((bound, after[bound] - before.get(bound, 0.0)) for bound in after)
    total = deltas[-1][1] if deltas else 0.0
    for bound, count in deltas:
        if total and count >= q * total:
            return bound * 1000
    return float("nan")


class Seat:
    """One client: a WebSocket, its latest view and the actions in flight it is waiting to see."""

    def __init__(self, bench: Bench, token: str) -> None:
        self.bench = bench
        self.token = token
        self.ws: ClientConnection | None = None
        self.table = ""
        self.view: dict[str, Any] | None = None
        self.status = ""
        self.waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.ids = 0

    async def open(self, port: int) -> None:
        self.ws = await connect(
            f"ws://127.0.0.1:{port}/ws",
            max_size=2**22,
            open_timeout=120,
            ping_interval=None,
        )
        await self.ws.send(json.dumps({"type": "auth", "id": "auth", "token": self.token}))
        await self.ws.recv()  # welcome
        asyncio.get_running_loop().create_task(self.reader())

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        assert self.ws is not None
        self.ids += 1
        request_id = f"{kind}{self.ids}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters[request_id] = future
        await self.ws.send(json.dumps({"type": kind, "id": request_id, **fields}))
        return await future

    async def reader(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                now = time.perf_counter()
                message = json.loads(frame)
                kind = message["type"]
                if kind in ("ack", "error"):
                    waiter = self.waiters.pop(message["id"], None)
                    if waiter is not None and not waiter.done():
                        waiter.set_result(message)
                    if kind == "error":
                        self.bench.errors += 1
                    continue
                if kind in ("event", "snapshot"):
                    if message.get("view") is not None:
                        self.view = message["view"]
                    self.status = message["state"]["status"]
                    if kind == "event":
                        self.bench.on_event(self, message, now)
        except Exception:
            self.bench.dropped += 1


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.latencies: list[float] = []
        self.sent: dict[tuple[str, int], float] = {}  # (table, seat) -> when its last action was sent
        self.measuring = False
        self.actions = 0
        self.errors = 0
        self.dropped = 0
        self.games = 0

    def on_event(self, seat: Seat, message: dict[str, Any], now: float) -> None:
        event = message["event"]
        if event["kind"] in ("play", "pass"):
            started = self.sent.get((message["table"], event["seat"]))
            if started is not None and self.measuring:
                self.latencies.append(now - started)
        elif event["kind"] == "game_over" and seat.view is not None and seat.view.get("seat") == 0:
            self.games += 1

    async def table_loop(self, seats: list[Seat], stop: float) -> None:
        """One action per second at this table, by whoever is to move."""
        await asyncio.sleep(random.random())
        while time.perf_counter() < stop:
            tick = time.perf_counter()
            view = seats[0].view
            if seats[0].status != "playing" or view is None or view.get("over"):
                if all(s.status in ("between", "waiting") for s in seats):
                    await asyncio.gather(*(s.request("ready", table=s.table) for s in seats))
                await asyncio.sleep(0.05)
                continue
            mover = view["to_move"]
            seat = seats[mover]
            mine = seat.view
            if mine is None or mine.get("to_move") != mover or mine.get("seat") != mover:
                await asyncio.sleep(0.01)
                continue
            self.sent[(seat.table, mover)] = time.perf_counter()
            if mine["can_pass"] and (not mine["legal_plays"] or len(mine["legal_plays"]) > 3):
                await seat.request("pass", table=seat.table)
            else:
                await seat.request("play", table=seat.table, cards=mine["legal_plays"][0])
            if self.measuring:
                self.actions += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix="niugui-load-"))
    cmd = [
        sys.executable,
        "-m",
        "niugui.cli.main",
        "serve",
        "--port",
        str(port),
        "--data",
        str(data),
        "--rate-limit",
        "100",
        "--exempt",  # every client is on loopback: per-address fair-use limits would count them as one
        "127.0.0.1",
        "--log-level",
        "warning",
    ]
    with open(data / "server.log", "wb") as log:
        server = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
    bench = Bench(args)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            for _ in range(300):
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)
            idle_rss = proc_rss_bytes(server.pid)
            n = args.tables
            limit = asyncio.Semaphore(50)

            async def guest(i: int) -> str:
                async with limit:
                    reply = await http.post("/api/guest", json={"nickname": f"load{i}"})
                    token: str = reply.json()["token"]
                    return token

            tokens = await asyncio.gather(*(guest(i) for i in range(4 * n)))
        seats = [Seat(bench, t) for t in tokens]

        async def open_seat(seat: Seat) -> None:
            async with limit:
                await seat.open(port)

        connect_started = time.perf_counter()
        await asyncio.gather(*(open_seat(s) for s in seats))
        connect_seconds = time.perf_counter() - connect_started
        tables = [seats[4 * i : 4 * i + 4] for i in range(n)]

        async def seat_table(group: list[Seat]) -> None:
            async with limit:
                ack = await group[0].request("create_table", settings={"name": "load", "turn_seconds": 120})
                table = ack["data"]["table"]["id"]
                for number, seat in enumerate(group):
                    seat.table = table
                    answer = await seat.request("sit", table=table, seat=number)
                    assert answer["type"] == "ack", answer

        await asyncio.gather(*(seat_table(g) for g in tables))
        connected_rss = proc_rss_bytes(server.pid)
        stop = time.perf_counter() + args.warmup + args.seconds
        loops = [asyncio.create_task(bench.table_loop(g, stop)) for g in tables]
        await asyncio.sleep(args.warmup)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            metrics0 = handle_buckets((await http.get("/metrics")).text)
        bench.measuring = True
        cpu0, client_cpu0, wall0 = proc_cpu_seconds(server.pid), time.process_time(), time.perf_counter()
        await asyncio.sleep(args.seconds)
        bench.measuring = False
        cpu1, client_cpu1, wall1 = proc_cpu_seconds(server.pid), time.process_time(), time.perf_counter()
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            metrics1 = handle_buckets((await http.get("/metrics")).text)
        await asyncio.gather(*loops, return_exceptions=True)
        wall = wall1 - wall0
        lat_ms = [x * 1000 for x in bench.latencies]
        result = {
            "tables": n,
            "connections": 4 * n,
            "seconds": round(wall, 1),
            "actions": bench.actions,
            "actions_per_s": round(bench.actions / wall, 1),
            "target_actions_per_s": n,
            "deliveries": len(lat_ms),
            "p50_ms": round(percentile(lat_ms, 0.50), 2),
            "p99_ms": round(percentile(lat_ms, 0.99), 2),
            "max_ms": round(max(lat_ms), 2) if lat_ms else None,
            "mean_ms": round(statistics.fmean(lat_ms), 2) if lat_ms else None,
            "server_handle_p50_ms_le": bucket_quantile(metrics0, metrics1, 0.50),
            "server_handle_p99_ms_le": bucket_quantile(metrics0, metrics1, 0.99),
            "server_cpu_percent": round(100 * (cpu1 - cpu0) / wall, 1),
            "server_cpu_ms_per_action": round(1000 * (cpu1 - cpu0) / max(1, bench.actions), 3),
            "client_cpu_percent": round(100 * (client_cpu1 - client_cpu0) / wall, 1),
            "server_rss_idle_mb": round(idle_rss / 2**20, 1),
            "server_rss_connected_mb": round(connected_rss / 2**20, 1),
            "server_kib_per_connection": round((connected_rss - idle_rss) / 1024 / (4 * n), 1),
            "connect_seconds": round(connect_seconds, 1),
            "errors": bench.errors,
            "dropped_connections": bench.dropped,
            "games_finished": bench.games,
            "load_average": os.getloadavg()[0],
        }
        for seat in seats:
            if seat.ws is not None:
                await seat.ws.close()
        return result
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 100], help="N (several: one run each)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measuring window per run")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--json", action="store_true", help="print one JSON object per run")
    args = parser.parse_args()
    print(f"# niugui load bench on {os.cpu_count()} cores; client and server share them", flush=True)
    for n in args.tables:
        one = argparse.Namespace(**{**vars(args), "tables": n})
        result = asyncio.run(run(one))
        if args.json:
            print(json.dumps(result), flush=True)
        else:
            print(" ".join(f"{k}={v}" for k, v in result.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
