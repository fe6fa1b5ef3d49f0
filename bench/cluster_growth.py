"""Growth of a cluster, simulated on one machine: 1, 2, 4, 8 nodes, each in a network namespace of its
own (its own address, as separate machines would be), at a fixed small load per node; what one action
costs Redis, PostgreSQL and the bus as the node count grows (docs/scaling.md, "Growth").

    sudo nice .venv/bin/python bench/cluster_growth.py --nodes 1 2 4 8 --tables-per-node 3 --seconds 20

Needs root (``ip netns``, veth, a bridge). It makes a bridge ``b2g-br`` (10.77.0.1/24) and per node a
namespace ``b2g-n<i>`` with a veth (10.77.0.<10+i>), all removed at the end. On the bridge's address
it runs a Redis of its own (so that ``INFO commandstats`` and the byte counters are the cluster's
only) and a forwarder to the machine's PostgreSQL that counts the statements the nodes send (each
``Query`` and each ``Execute`` message of the wire protocol) — the nodes reach neither otherwise.
The schema is fresh for each run (:mod:`cluster_setup`).

The load client runs here (outside the namespaces): ``--tables-per-node`` × nodes tables, four
WebSocket clients each, seat s of table t connected to node (t + s) mod nodes (so a table's players
are spread over the nodes, as with random placement), one action per second per table
(:mod:`load_bench`'s loop). Over the window: actions, Redis commands and bytes (in + out), PostgreSQL
statements, relayed frames (``niugui_cluster_frames_relayed_total``) and forwarded requests; each per
action, and Redis commands per node per second before any action (heartbeats, renewals, lobby).

``--affinity``: each client follows the hint its ``sit`` is answered with (``data.node``, the table's
owner when another node answered; docs/scaling.md, "Table affinity"): it connects to the owner's
address and rejoins the table there before the measuring starts, as the page does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import redis
from cluster_setup import Backing
from load_bench import Bench, Seat

ROOT = Path(__file__).resolve().parents[1]
BRIDGE, HOST = "b2g-br", "10.77.0.1"
REDIS_PORT, PG_PORT, NODE_PORT = 16379, 15432, 8000


def sh(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True)


def node_address(i: int) -> str:
    return f"10.77.0.{10 + i}"


@contextlib.contextmanager
def network(count: int) -> Iterator[None]:
    """The bridge and ``count`` namespaces, each with a veth on the bridge; removed afterwards."""
    sh("ip", "link", "add", BRIDGE, "type", "bridge")
    try:
        sh("ip", "addr", "add", f"{HOST}/24", "dev", BRIDGE)
        sh("ip", "link", "set", BRIDGE, "up")
        for i in range(count):
            ns, outside, inside = f"b2g-n{i}", f"b2g-h{i}", f"b2g-c{i}"
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", outside, "type", "veth", "peer", "name", inside)
            sh("ip", "link", "set", inside, "netns", ns)
            sh("ip", "link", "set", outside, "master", BRIDGE, "up")
            sh("ip", "-n", ns, "addr", "add", f"{node_address(i)}/24", "dev", inside)
            sh("ip", "-n", ns, "link", "set", inside, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        yield
    finally:
        for i in range(count):
            subprocess.run(["ip", "link", "del", f"b2g-h{i}"], capture_output=True)
            subprocess.run(["ip", "netns", "del", f"b2g-n{i}"], capture_output=True)
        subprocess.run(["ip", "link", "del", BRIDGE], capture_output=True)


class PgCounter:
    """A TCP forwarder to PostgreSQL that counts the statements its clients send."""

    def __init__(self) -> None:
        self.statements = 0

    async def serve(self) -> asyncio.Server:
        return await asyncio.start_server(self._client, HOST, PG_PORT)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", 5432)
        except OSError:
            writer.close()
            return
        with contextlib.suppress(asyncio.CancelledError):  # the run is over: the loop closes it
            await asyncio.gather(self._upstream(reader, up_writer), self._pipe(up_reader, writer))

    async def _upstream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Client → server: untyped startup messages until the protocol 3.0 one, then typed ones."""
        try:
            while True:  # SSLRequest / GSSENCRequest (answered 'N'), then the StartupMessage
                head = await reader.readexactly(8)
                length, code = struct.unpack("!ii", head)
                writer.write(head + await reader.readexactly(length - 8))
                if code == 196608:
                    break
            while True:
                head = await reader.readexactly(5)
                kind, length = head[:1], struct.unpack("!i", head[1:])[0]
                if kind in (b"Q", b"E"):
                    self.statements += 1
                writer.write(head + await reader.readexactly(length - 4))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()


class NsSeat(Seat):
    """A load client connecting to a node's own address."""

    host: str = "127.0.0.1"
    moved = False
    """Closed by the bench itself (it moved to the table's owner): not a dropped connection."""

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.moved:
            super().connection_lost(exc)

    async def open(self, port: int) -> None:
        loop = asyncio.get_running_loop()
        welcome = loop.create_task(self.wait_for("welcome"))
        await loop.create_connection(lambda: self, self.host, port)
        await self.upgraded
        assert self.transport is not None
        self.transport.write(_frame(json.dumps({"type": "auth", "id": "auth", "token": self.token})))
        await welcome


def _frame(text: str) -> bytes:
    from load_bench import client_frame

    return client_frame(text.encode())


async def follow(seat: NsSeat, owner: str, table: str) -> NsSeat:
    """What a client does with a seat's hint (``data.node``, table affinity): connect to the owner's
    address as the same account, rejoin the table there, then close the old connection."""
    moved = NsSeat(seat.bench, seat.token)
    moved.host, moved.table = node_address(int(owner.removeprefix("g"))), table
    await moved.open(NODE_PORT)
    answer = await moved.request("watch", table=table)
    assert answer["type"] == "ack" and "node" not in (answer.get("data") or {}), answer
    seat.moved = True
    assert seat.transport is not None
    seat.transport.close()
    return moved


def start_node(i: int, pg_url: str, prefix: str) -> subprocess.Popen[bytes]:
    data = Path(tempfile.mkdtemp(prefix="niugui-growth-"))
    cmd = [
        "ip", "netns", "exec", f"b2g-n{i}", sys.executable, "-m", "niugui.cli.main", "serve",
        "--host", node_address(i), "--port", str(NODE_PORT), "--data", str(data), "--rate-limit", "100",
        "--exempt", f"{HOST}/32", "--log-level", "warning", "--db", pg_url,
        "--redis", f"redis://{HOST}:{REDIS_PORT}/0", "--redis-prefix", prefix, "--node-id", f"g{i}",
    ]  # fmt: skip
    log = open(data / "server.log", "wb")  # noqa: SIM115 - the child keeps it
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)


def redis_counts(client: redis.Redis) -> tuple[int, int, dict[str, int]]:
    """(commands, bytes in + out, calls per command) of the private Redis so far."""
    stats = client.info("stats")
    commands = client.info("commandstats")
    calls = {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in commands.items()}
    total = int(stats["total_net_input_bytes"]) + int(stats["total_net_output_bytes"])
    return sum(calls.values()), total, calls


def metric_sum(count: int, name: str) -> float:
    total = 0.0
    for i in range(count):
        text = httpx.get(f"http://{node_address(i)}:{NODE_PORT}/metrics", timeout=10).text
        total += sum(float(v) for v in re.findall(rf"^{re.escape(name)}(?:\{{[^}}]*\}})? (\S+)$", text, re.M))
    return total


async def wait_ready(count: int) -> None:
    deadline = time.monotonic() + 180
    async with httpx.AsyncClient(timeout=5) as http:
        for i in range(count):
            while True:
                try:
                    answer = (await http.get(f"http://{node_address(i)}:{NODE_PORT}/healthz")).json()
                    if answer.get("nodes") == count:
                        break
                except (httpx.HTTPError, ValueError):
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"node {i} not ready")
                await asyncio.sleep(0.2)


async def one_run(args: argparse.Namespace, count: int) -> dict[str, Any]:
    own_redis = redis.Redis(host=HOST, port=REDIS_PORT)
    own_redis.flushall()
    counter = PgCounter()
    server = await counter.serve()
    with Backing(args.pg, f"redis://{HOST}:{REDIS_PORT}/0") as backing:
        pg_url = backing.url.replace("127.0.0.1:5432", f"{HOST}:{PG_PORT}")
        begun = time.monotonic()
        nodes = [start_node(i, pg_url, backing.prefix) for i in range(count)]
        try:
            await wait_ready(count)
            print(f"# {count} nodes ready after {time.monotonic() - begun:.0f} s", flush=True)
            result = await measure(args, count, own_redis, counter)
        finally:  # measured: no need to wait for their drain
            for node in nodes:
                node.kill()
            for node in nodes:
                node.wait(30)
            server.close()
    own_redis.close()
    return result


async def measure(args: argparse.Namespace, count: int, own: redis.Redis, pg: PgCounter) -> dict[str, Any]:
    bench = Bench(argparse.Namespace(protocol1=False, offer_deflate=False))
    n = args.tables_per_node * count
    async with httpx.AsyncClient(timeout=60) as http:
        tokens = []
        for i in range(4 * n):
            reply = await http.post(
                f"http://{node_address(i % count)}:{NODE_PORT}/api/guest", json={"nickname": f"g{i}"}
            )
            tokens.append(reply.json()["token"])
    seats = [NsSeat(bench, t) for t in tokens]
    for index, seat in enumerate(seats):  # seat s of table t on node (t + s) mod nodes
        seat.host = node_address((index // 4 + index % 4) % count)
        await seat.open(NODE_PORT)
    tables = [seats[4 * i : 4 * i + 4] for i in range(n)]
    moved = 0
    for group in tables:
        ack = await group[0].request("create_table", settings={"name": "growth", "turn_seconds": 120})
        table = ack["data"]["table"]["id"]
        for number, seat in enumerate(group):
            seat.table = table
            answer = await seat.request("sit", table=table, seat=number)
            owner = (answer.get("data") or {}).get("node")
            if args.affinity and owner is not None:  # follow the hint: to the owner's address
                group[number] = await follow(seat, owner, table)
                moved += 1
    idle0 = redis_counts(own), time.perf_counter()
    await asyncio.sleep(args.idle)
    idle1 = redis_counts(own), time.perf_counter()
    stop = time.perf_counter() + args.warmup + args.seconds
    loops = [asyncio.create_task(bench.table_loop(g, stop)) for g in tables]
    await asyncio.sleep(args.warmup)
    bench.measuring = True
    r0, pg0 = redis_counts(own), pg.statements
    relayed0 = metric_sum(count, "niugui_cluster_frames_relayed_total")
    forwarded0 = metric_sum(count, "niugui_cluster_forwarded_total")
    wall0 = time.perf_counter()
    await asyncio.sleep(args.seconds)
    bench.measuring = False
    r1, pg1 = redis_counts(own), pg.statements
    relayed1 = metric_sum(count, "niugui_cluster_frames_relayed_total")
    forwarded1 = metric_sum(count, "niugui_cluster_forwarded_total")
    wall = time.perf_counter() - wall0
    await asyncio.gather(*loops, return_exceptions=True)
    for group in tables:
        for seat in group:
            if seat.transport is not None:
                seat.transport.close()
    actions = max(1, bench.actions)
    by_command = {k: r1[2][k] - r0[2].get(k, 0) for k in r1[2]}
    top = sorted(((v, k) for k, v in by_command.items() if v), reverse=True)[:6]
    idle_seconds = idle1[1] - idle0[1]
    return {
        "nodes": count,
        "affinity": args.affinity,
        "moved": moved,
        "tables": n,
        "actions_per_s": round(bench.actions / wall, 1),
        "redis_cmds_per_action": round((r1[0] - r0[0]) / actions, 2),
        "redis_bytes_per_action": round((r1[1] - r0[1]) / actions),
        "pg_statements_per_action": round((pg1 - pg0) / actions, 2),
        "relayed_frames_per_action": round((relayed1 - relayed0) / actions, 2),
        "forwarded_per_action": round((forwarded1 - forwarded0) / actions, 2),
        "idle_redis_cmds_per_node_s": round((idle1[0][0] - idle0[0][0]) / idle_seconds / count, 1),
        "idle_redis_bytes_per_node_s": round((idle1[0][1] - idle0[0][1]) / idle_seconds / count),
        "top_commands": ",".join(f"{k}:{v / actions:.2f}" for v, k in top),
        "load_average": round(os.getloadavg()[0], 1),
    }


async def main_async(args: argparse.Namespace) -> None:
    biggest = max(args.nodes)
    with network(biggest):
        own = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                HOST,
                "--port",
                str(REDIS_PORT),
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(100):
                with contextlib.suppress(redis.ConnectionError):
                    if redis.Redis(host=HOST, port=REDIS_PORT).ping():
                        break
                await asyncio.sleep(0.1)
            for count in args.nodes:
                result = await one_run(args, count)
                print(" ".join(f"{k}={v}" for k, v in result.items()), flush=True)
        finally:
            own.terminate()
            own.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--tables-per-node", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--idle", type=float, default=3.0, help="seconds measured before any action")
    parser.add_argument(
        "--affinity",
        action="store_true",
        help="clients follow the owner's hint of their sit's answer: they connect to the table's owner",
    )
    parser.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("cluster_growth.py needs root (ip netns, veth, a bridge)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the namespaces and the bridge removed
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
