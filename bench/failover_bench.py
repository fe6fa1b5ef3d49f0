"""Failover time of a cluster: kill -9 a table's owner, and time until the table answers the next
request on another node; p50 / p99 over many kills (docs/scaling.md, "Failover").

    nice .venv/bin/python bench/failover_bench.py --nodes 3 --kills 5 --tables 5 --budget 100

It runs ``--nodes`` real nodes (``niugui serve --redis``, default lease 5 s) on the machine's Redis and
PostgreSQL (a fresh schema and key prefix, removed afterwards). Each round makes ``--tables`` tables
(each with a game going on: its creator seated, bots in the other seats) on the least loaded node —
the node restarted last round, so the victim — and, for each table, a spectator connected to another
node. Then it kills the victim (SIGKILL) and, from that instant, every spectator sends ``watch`` for
its table again and again (50 ms after each refusal, a client's back-off) until it is acked: the ack
comes only from the table's owner, so the time is from the kill to a survivor owning the table, its
events rebuilt, and serving it. The killed node is then started again (same name) for the next round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from cluster_setup import Backing
from load_bench import free_port, percentile
from websockets.asyncio.client import ClientConnection, connect

from niugui.server.store import Store

ROOT = Path(__file__).resolve().parents[1]


class Client:
    """One WebSocket client; its requests are answered by id, every other frame is read and dropped."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = 0
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, token: str) -> Client:
        ws = await connect(f"ws://127.0.0.1:{port}/ws", max_size=2**22)
        await ws.send(json.dumps({"type": "auth", "id": "auth", "token": token}))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome", welcome
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                message = json.loads(text)
                future = self.waiting.pop(str(message.get("id")), None)
                if future is not None and not future.done() and message["type"] in ("ack", "error"):
                    future.set_result(message)
        except Exception:
            pass
        for future in self.waiting.values():
            if not future.done():
                future.set_result({"type": "error", "code": "closed"})

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        key = f"r{self.ids}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[key] = future
        await self.ws.send(json.dumps({"type": kind, "id": key, **fields}))
        return await future

    async def close(self) -> None:
        self.reader.cancel()
        await self.ws.close()


class Node:
    def __init__(self, backing: Backing, index: int, lease: float) -> None:
        self.backing, self.index, self.lease = backing, index, lease
        self.port = free_port()
        self.data = Path(tempfile.mkdtemp(prefix="niugui-failover-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def name(self) -> str:
        return f"b{self.index}"

    def start(self) -> None:
        cmd = [
            sys.executable, "-m", "niugui.cli.main", "serve", "--port", str(self.port), "--data",
            str(self.data), "--rate-limit", "100", "--exempt", "127.0.0.1", "--log-level", "warning",
            "--lease", str(self.lease), *self.backing.node_args(self.index),
        ]  # fmt: skip
        with open(self.data / "server.log", "ab") as log:
            self.process = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(
            f"node {self.name} did not start: {(self.data / 'server.log').read_text()[-2000:]}"
        )

    def nodes_seen(self) -> int:
        try:
            return int(httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=5).json()["nodes"])
        except (httpx.HTTPError, KeyError, ValueError):
            return 0

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def guest(port: int, nickname: str) -> str:
    reply = httpx.post(f"http://127.0.0.1:{port}/api/guest", json={"nickname": nickname}, timeout=10)
    token: str = reply.json()["token"]
    return token


async def until_answered(client: Client, table: str, killed: float, last: dict[str, str]) -> float:
    """Seconds from the kill until ``watch`` is acked; ``last[table]`` keeps the latest refusal's code."""
    while True:
        answer = await client.request("watch", table=table)
        if answer["type"] == "ack":
            return time.monotonic() - killed
        last[table] = str(answer.get("code"))
        await asyncio.sleep(0.05)


async def one_round(nodes: list[Node], victim: Node, args: argparse.Namespace, round_no: int) -> list[float]:
    others = [n for n in nodes if n is not victim]
    creator = await Client.open(victim.port, guest(victim.port, f"host{round_no}"))
    mine: list[str] = []
    for t in range(4 * args.tables):  # placement picks the least loaded node: the victim, mostly
        if len(mine) >= args.tables:
            break
        ack = await creator.request("create_table", settings={"name": f"f{round_no}-{t}", "turn_seconds": 30})
        if ack["type"] != "ack":  # a creation cap per account: a new creator
            print(f"#   create_table refused ({ack['code']}): a new creator", flush=True)
            await creator.close()
            creator = await Client.open(victim.port, guest(victim.port, f"host{round_no}-{t}"))
            continue
        table = ack["data"]["table"]["id"]
        owner = victim.backing.redis.get(f"{victim.backing.prefix}:lease:{table}")
        if owner is not None and owner.decode().startswith(victim.name + "|"):
            await creator.request("sit", table=table, seat=0)
            await creator.request("fill_bots", table=table)  # a game going on
            mine.append(table)
    held = victim.backing.redis.smembers(f"{victim.backing.prefix}:tables:{victim.name}")
    mine += sorted(t.decode() for t in held if t.decode() not in mine)  # adopted in earlier rounds
    watchers = []
    for n, table in enumerate(mine):
        node = others[n % len(others)]
        watcher = await Client.open(node.port, guest(node.port, f"w{round_no}-{n}"))
        assert (await watcher.request("watch", table=table))["type"] == "ack"
        watchers.append(watcher)
    await asyncio.sleep(0.5)  # a game going on, the lobby and heartbeats as usual
    # Only the tables the victim still owns and that are not finished: one adopted rounds ago may have
    # finished its match since, and no node serves a finished table after a failover (the survivor
    # that steals it sees it finished and lets it go) — a wait for it would measure only refusals.
    leases = victim.backing.redis.mget([f"{victim.backing.prefix}:lease:{t}" for t in mine])
    store = Store(victim.backing.url)  # a finished table keeps its lease a while (its result shown)
    try:
        rows = [store.table_row(t) for t in mine]
    finally:
        store.close()
    held_now = [
        v is not None
        and v.decode().startswith(victim.name + "|")
        and r is not None
        and r["status"] != "finished"
        for v, r in zip(leases, rows, strict=True)
    ]
    for watcher, held in zip(watchers, held_now, strict=True):
        if not held:
            await watcher.close()
    watchers = [w for w, held in zip(watchers, held_now, strict=True) if held]
    finished = len(mine) - len(watchers)
    mine = [t for t, held in zip(mine, held_now, strict=True) if held]
    if finished:
        print(f"#   {finished} table(s) no longer the victim's (match over): not timed", flush=True)
    assert victim.process is not None
    victim.process.kill()
    killed = time.monotonic()
    last: dict[str, str] = {}
    tasks = [
        asyncio.create_task(until_answered(w, t, killed, last)) for w, t in zip(watchers, mine, strict=True)
    ]
    _, pending = await asyncio.wait(tasks, timeout=60)
    for task in pending:
        task.cancel()
    unanswered = [t for t, task in zip(mine, tasks, strict=True) if task in pending]
    if unanswered:  # say what the table's state was, so a lost table is told from a finished one
        for table in unanswered:
            owner = victim.backing.redis.get(f"{victim.backing.prefix}:lease:{table}")
            print(f"#   unanswered after 60 s: {table} (last refusal {last.get(table)}, lease {owner!r})")
        raise SystemExit(f"{len(unanswered)} of {len(mine)} tables not answered within 60 s")
    times = [task.result() for task in tasks]
    victim.process.wait(10)
    for client in [creator, *watchers]:
        await client.close()
    return list(times)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with Backing(args.pg, args.redis) as backing:
        nodes = [Node(backing, i, args.lease) for i in range(args.nodes)]
        try:
            for node in nodes:
                node.start()
            samples: list[float] = []
            started = time.monotonic()
            kills = 0
            while kills < args.kills and time.monotonic() - started < args.budget:
                victim = nodes[kills % len(nodes)]
                times = await one_round(nodes, victim, args, kills)
                kills += 1
                samples += times
                print(
                    f"# kill {kills}: {len(times)} tables, {' '.join(f'{t:.2f}' for t in times)}", flush=True
                )
                print(
                    f"#   so far: p50 {statistics.median(samples):.2f}, p99 {percentile(samples, 0.99):.2f} s"
                )
                restarted = time.monotonic()
                victim.start()
                while any(n.nodes_seen() != len(nodes) for n in nodes):
                    await asyncio.sleep(0.1)
                print(f"#   {victim.name} started again in {time.monotonic() - restarted:.1f} s", flush=True)
            return {
                "nodes": args.nodes,
                "lease_s": args.lease,
                "kills": kills,
                "samples": len(samples),
                "p50_s": round(statistics.median(samples), 3),
                "p99_s": round(percentile(samples, 0.99), 3),
                "max_s": round(max(samples), 3),
                "wall_s": round(time.monotonic() - started, 1),
            }
        finally:
            for node in nodes:
                node.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--tables", type=int, default=3, help="tables made on the victim each round")
    parser.add_argument("--budget", type=float, default=100.0, help="no new kill after this many seconds")
    parser.add_argument("--lease", type=float, default=5.0, help="the nodes' --lease (default: the default)")
    parser.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the nodes stopped and the schema dropped
    result = asyncio.run(run(args))
    print(" ".join(f"{k}={v}" for k, v in result.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
