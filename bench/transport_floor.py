"""The floor under ``load_bench.py``: what a Python server costs per action when it does nothing
but what every action needs from the network — read one client's WebSocket frame, unmask and parse
its JSON (with the server's own ``transport.client_texts``), and write one frame to each of the
table's four connections — with no game, no store, no validation, no views. Same machine, same loop
(uvloop), same framing, same frame size as the real server (about 1.2 KB a frame), same load shape:
N tables × 4 connections, one action per second per table, the load generator on the same two cores.

    .venv/bin/python bench/transport_floor.py --tables 200 1000 --seconds 20

Reports server CPU per action (user and system) and the latency from an action to its fourth
delivery, like ``load_bench.py``. Whatever ``niugui serve`` spends above this floor is the app's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_bench import (
    _use_uvloop,
    client_frame,
    free_port,
    percentile,
    proc_cpu_seconds,
    quiet_collector,
    server_frames,
)

from niugui.server.transport import client_texts, text_frame

PAD = "x" * 1100


# ---- the server: one process, raw WebSocket frames over TCP (no HTTP upgrade) ----------------------


class Peer(asyncio.Protocol):
    def __init__(self, groups: dict[int, list[asyncio.Transport]]) -> None:
        self.groups = groups
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.group: list[asyncio.Transport] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        texts, used = client_texts(bytes(self.buffer), None)  # the server's own read path
        del self.buffer[:used]
        for text in texts:
            message = json.loads(text)
            if self.group is None:
                assert self.transport is not None
                self.group = self.groups.setdefault(message["table"], [])
                self.group.append(self.transport)
                continue
            payload = json.dumps({"type": "event", "id": message["id"], "pad": PAD}).encode()
            frame = text_frame(payload) + payload
            for transport in self.group:
                transport.write(frame)


async def serve(port: int) -> None:
    groups: dict[int, list[asyncio.Transport]] = {}
    server = await asyncio.get_running_loop().create_server(
        lambda: Peer(groups), "127.0.0.1", port, backlog=4096
    )
    async with server:
        await server.serve_forever()


# ---- the load generator -------------------------------------------------------------------------


class Client(asyncio.Protocol):
    def __init__(self, arrivals: dict[str, list[float]]) -> None:
        self.arrivals = arrivals
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        self.buffer += data
        for _, payload in server_frames(self.buffer):
            self.arrivals[json.loads(payload)["id"]].append(now)

    def send(self, message: dict[str, object]) -> None:
        assert self.transport is not None
        self.transport.write(client_frame(json.dumps(message).encode()))


async def measure(
    tables: int, seconds: float, warmup: float, server: subprocess.Popen[bytes], port: int
) -> str:
    loop = asyncio.get_running_loop()
    arrivals: dict[str, list[float]] = {}
    sent: dict[str, float] = {}
    clients = []
    for table in range(tables):
        for _ in range(4):
            for _attempt in range(100):
                try:
                    _, client = await loop.create_connection(lambda: Client(arrivals), "127.0.0.1", port)
                    break
                except OSError:
                    await asyncio.sleep(0.1)
            client.send({"table": table})
            clients.append(client)
    quiet_collector()
    measuring = False
    actions = 0

    async def table_loop(group: list[Client], stop: float) -> None:
        nonlocal actions
        await asyncio.sleep(random.random())
        count = 0
        while time.perf_counter() < stop:
            tick = time.perf_counter()
            count += 1
            request = f"{id(group)}-{count}"
            arrivals[request] = []
            sent[request] = tick
            group[count % 4].send({"type": "play", "id": request, "cards": ["S3"]})
            if measuring:
                actions += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))

    stop = time.perf_counter() + warmup + seconds
    loops = [asyncio.create_task(table_loop(clients[4 * t : 4 * t + 4], stop)) for t in range(tables)]
    await asyncio.sleep(warmup)
    measuring = True
    first = set(arrivals)
    user0, sys0 = proc_cpu_seconds(server.pid)
    wall0 = time.perf_counter()
    await asyncio.sleep(seconds)
    user1, sys1 = proc_cpu_seconds(server.pid)
    wall = time.perf_counter() - wall0
    measuring = False
    await asyncio.gather(*loops)
    await asyncio.sleep(0.5)
    all4 = [
        1000 * (times[3] - sent[request])
        for request, times in arrivals.items()
        if request not in first and len(times) == 4 and sent[request] - wall0 < seconds
    ]
    for client in clients:
        assert client.transport is not None
        client.transport.close()
    cpu = (user1 - user0) + (sys1 - sys0)
    return (
        f"tables={tables} connections={4 * tables} seconds={wall:.1f} actions={actions} "
        f"server_cpu_ms_per_action={1000 * cpu / max(1, actions):.3f} "
        f"server_system_share={(sys1 - sys0) / max(1e-9, cpu):.2f} "
        f"server_cpu_percent={100 * cpu / wall:.1f} "
        f"all4_p50_ms={percentile(all4, 0.5):.2f} all4_p99_ms={percentile(all4, 0.99):.2f} "
        f"load_average={os.getloadavg()[0]:.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[200])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    _use_uvloop()
    if args.serve:
        asyncio.run(serve(args.serve))
        return 0
    print(f"# transport floor on {os.cpu_count()} cores; client and server share them", flush=True)
    for tables in args.tables:
        port = free_port()
        server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
        try:
            print(asyncio.run(measure(tables, args.seconds, args.warmup, server, port)), flush=True)
        finally:
            server.kill()
            server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
