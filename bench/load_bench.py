"""Load benchmark of ``niugui serve``: N tables × 4 WebSocket clients on loopback, one action per second
per table; latency from an action to its four broadcasts, server CPU per action, memory per connection.

    .venv/bin/python bench/load_bench.py --tables 200 1000 2000 --seconds 30
    .venv/bin/python bench/load_bench.py --tables 200 --nodes 1 2   # a cluster (docs/scaling.md)

``--nodes N`` runs N cluster nodes (``niugui serve --redis``) on the machine's Redis and PostgreSQL
(a fresh schema, a fresh key prefix) and connects the clients of each table round-robin to the nodes,
so that with two nodes half of the actions are forwarded to the table's owner. ``--nodes 0`` is one
process without Redis on the same PostgreSQL: the difference to ``--nodes 1`` is what Redis costs.
CPU per action then sums every node's CPU, and ``redis_cpu_ms_per_action`` is the Redis server's
(from its INFO, so it includes whatever else uses that Redis meanwhile).

``--offer-deflate`` asks for permessage-deflate in the upgrade, as browsers do; ``niugui serve``
declines it, a server that takes it compresses every frame and the clients inflate them
(``deflate_connections`` counts them). ``--protocol1`` speaks to a server from before first-message
authentication — issue 8's baseline, 64b003d — with the token in the URL; so before and after are
measured by this same file (docs/benchmarks.md, "Against issue 8's baseline")::

    git archive 64b003d | tar -x -C /tmp/before && cp bench/load_bench.py /tmp/before/bench/
    cd /tmp/before && /path/to/.venv/bin/python bench/load_bench.py --protocol1 --offer-deflate --tables 200

It starts the server itself (SQLite in a temporary data directory) as a child process, signs up 4N
guests, seats four clients at each table (the game starts when all four sit), and then, at each
table, the client whose turn it is acts once per second (its weakest legal play, or a pass when it
may). For every action it measures, in this one process (one clock), the time from sending
``play``/``pass`` to each of the four clients receiving the matching event; ``all4`` is the time
until the last of the four has it. Server CPU is read from /proc over the measuring window; memory
per connection is the growth of the server's RSS from idle to all clients seated, divided by 4N.

The load generator runs on the same machine and competes with the server for the same cores, so it
is kept cheap, honestly: every client still receives every frame the server sends it, unmasks
nothing (server frames are not masked), masks its own frames as RFC 6455 requires, and parses every
frame as JSON — but it speaks the WebSocket protocol itself on uvloop (a few lines of framing)
instead of through a general client library, whose per-frame cost was larger than the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import os
import random
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
BROWSER_OFFER = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
"""What Chromium and Firefox offer in every WebSocket upgrade (``--offer-deflate``)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def proc_cpu_seconds(pid: int) -> tuple[float, float]:
    """A process's CPU time so far: (user, system) seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


def loop_thread_cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) of a process's main thread: the server's event loop (the rest
    of its CPU is the event writer's thread and the thread pool's)."""
    fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_syscalls(pid: int) -> tuple[int, int, int]:
    """A process's system calls so far that do not depend on the machine's load: reads and writes
    (``/proc/PID/io``: uvloop reads and writes sockets with ``read``/``write``/``writev``), and its
    threads' voluntary context switches (a thread waiting: on the socket, a lock, the writer)."""
    io = dict(line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())
    switches = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        for line in status.read_text().splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                switches += int(line.split()[1])
    return int(io["syscr"]), int(io["syscw"]), switches


def proc_rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def quiet_collector() -> None:
    """Keep the load generator's garbage collector from stalling it: its 4N seats' objects (views,
    buffers, futures: millions) are frozen out of the collector's sight once every client is seated,
    and the collector is off for the run (the generator makes little cyclic garbage in a minute;
    reference counting frees the rest). With CPython's default thresholds its collections took up
    to 0.3 s each at 1,000 tables, 17 % of its time (with raised thresholds still up to 0.19 s: each
    seat's latest view, ~200,000 objects, is always young), and every delivery measured meanwhile was
    late by them."""
    gc.collect()
    gc.freeze()
    gc.disable()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---- the WebSocket client's framing (RFC 6455) -----------------------------------------------------


def client_frame(payload: bytes, opcode: int = 1) -> bytes:
    """A client frame: FIN, ``opcode``, masked with a fresh random key (RFC 6455 §5.3).

    >>> frame = client_frame(b"hello")
    >>> frame[:2], bytes(a ^ frame[2 + i % 4] for i, a in enumerate(frame[6:]))
    (b'\\x81\\x85', b'hello')
    """
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    key = os.urandom(4)
    repeated = (key * (size // 4 + 1))[:size]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(size, "big")
    return head + key + masked


COMPRESSED = 0x40
"""RSV1 of a frame's first byte: its payload is compressed (permessage-deflate, RFC 7692 §6)."""


def server_frames(buffer: bytearray) -> list[tuple[int, bytes]]:
    """Take every complete (unmasked, unfragmented) server frame off ``buffer``: (opcode, payload),
    the opcode with ``COMPRESSED`` added when the frame's RSV1 bit says its payload is deflated
    (RFC 7692).

    >>> data = bytearray(b"\\x81\\x02hi\\xc1\\x01x\\x81\\x7e\\x00")
    >>> server_frames(data), bytes(data)
    ([(1, b'hi'), (65, b'x')], b'\\x81~\\x00')
    """
    frames = []
    at = 0
    end = len(buffer)
    while end - at >= 2:
        first, second = buffer[at], buffer[at + 1]
        size = second & 0x7F
        start = at + 2
        if size == 126:
            if end - at < 4:
                break
            size = int.from_bytes(buffer[at + 2 : at + 4], "big")
            start = at + 4
        elif size == 127:
            if end - at < 10:
                break
            size = int.from_bytes(buffer[at + 2 : at + 10], "big")
            start = at + 10
        if end - start < size:
            break
        if not first & 0x80:
            raise ValueError("fragmented frames are not expected from this server")
        frames.append((first & (COMPRESSED | 0x0F), bytes(buffer[start : start + size])))
        at = start + size
    del buffer[:at]
    return frames


class Seat(asyncio.Protocol):
    """One client connection: its latest view, and the requests waiting for their answer."""

    def __init__(self, bench: Bench, token: str) -> None:
        self.bench = bench
        self.token = token
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.upgraded: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.table = ""
        self.view: dict[str, Any] | None = None
        self.status = ""
        self.waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.ids = 0
        self.inflater: Any = None
        """A zlib stream when the server compresses its frames (it took ``--offer-deflate``)."""
        self.takeover = True
        """Whether that stream carries on from message to message (RFC 7692 §7.1.1)."""

    async def open(self, port: int) -> None:
        loop = asyncio.get_running_loop()
        welcome = loop.create_task(self.wait_for("welcome"))  # the answer to auth
        await loop.create_connection(lambda: self, "127.0.0.1", port)
        await self.upgraded
        assert self.transport is not None  # protocol 2: the token goes in the first message, not the URL
        if not self.bench.args.protocol1:
            self.transport.write(
                client_frame(json.dumps({"type": "auth", "id": "auth", "token": self.token}).encode())
            )
        await welcome

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports are not asyncio's classes
        key = base64.b64encode(os.urandom(16)).decode()
        path = f"/ws?token={self.token}" if self.bench.args.protocol1 else "/ws"
        offer = BROWSER_OFFER if self.bench.args.offer_deflate else ""
        transport.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n{offer}"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        self.buffer += data
        if not self.upgraded.done():
            head, sep, _ = self.buffer.partition(b"\r\n\r\n")
            if not sep:
                return
            if not head.startswith(b"HTTP/1.1 101"):
                self.upgraded.set_exception(RuntimeError(head.decode(errors="replace")))
                return
            del self.buffer[: len(head) + 4]
            self.accept_extensions(head.decode().lower())
            self.upgraded.set_result(None)
        for opcode, payload in server_frames(self.buffer):
            if opcode == 1:
                self.on_message(json.loads(payload), now)
            elif opcode == COMPRESSED | 1:
                self.on_message(json.loads(self.inflate(payload)), now)
            elif opcode == 9:  # ping: pong with the same payload
                assert self.transport is not None
                self.transport.write(client_frame(payload, opcode=10))
            elif opcode == 8:
                self.bench.dropped += 1

    def accept_extensions(self, head: str) -> None:
        """Inflate what the server sends if its answer to the upgrade took permessage-deflate."""
        taken = [line for line in head.split("\r\n") if line.startswith("sec-websocket-extensions:")]
        if taken and "permessage-deflate" in taken[0]:
            self.inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            self.takeover = "server_no_context_takeover" not in taken[0]

    def inflate(self, payload: bytes) -> bytes:
        """A compressed message's text (RFC 7692 §7.2.2: the four octets its sender dropped put back).

        >>> seat = Seat.__new__(Seat)
        >>> seat.accept_extensions("sec-websocket-extensions: permessage-deflate")
        >>> deflater = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        >>> sent = [deflater.compress(b'{"n":1}') + deflater.flush(zlib.Z_SYNC_FLUSH) for _ in range(2)]
        >>> [seat.inflate(frame[:-4]) for frame in sent]  # the second refers back to the first
        [b'{"n":1}', b'{"n":1}']
        """
        text: bytes = self.inflater.decompress(payload + b"\x00\x00\xff\xff")
        if not self.takeover:
            self.inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        return text

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.bench.closing:
            self.bench.dropped += 1

    def on_message(self, message: dict[str, Any], now: float) -> None:
        kind = message["type"]
        if kind in ("ack", "error"):
            waiter = self.waiters.pop(message["id"], None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)
            if kind == "error":
                self.bench.errors += 1
                code = str(message.get("code"))
                self.bench.error_codes[code] = self.bench.error_codes.get(code, 0) + 1
            return
        waiter = self.waiters.pop(kind, None)  # welcome
        if waiter is not None:
            waiter.set_result(message)
        if kind in ("event", "snapshot"):
            if message["view"] is not None:
                self.view = message["view"]
            self.status = message["state"]["status"]
            if kind == "event":
                self.bench.on_event(self, message, now)

    async def wait_for(self, kind: str) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters[kind] = future
        return await future

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        assert self.transport is not None
        self.ids += 1
        request_id = f"{kind}{self.ids}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters[request_id] = future
        self.transport.write(client_frame(json.dumps({"type": kind, "id": request_id, **fields}).encode()))
        return await future


class SelfTrace:
    """The load generator's own stalls over the measuring window: how late a callback scheduled
    every 5 ms runs on its loop, and its garbage collections (a stall here delays the deliveries
    it measures, and would be charged to the server)."""

    PERIOD = 0.005

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.gc_times: list[float] = []
        self._gc_started = 0.0
        self._running = True
        self._window = (time.perf_counter(), 0.0)
        self._loop = asyncio.get_running_loop()
        self._due = time.perf_counter() + self.PERIOD
        self._loop.call_later(self.PERIOD, self._tick)
        gc.callbacks.append(self._on_gc)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.lags.append(now - self._due)
        if self._running:
            self._due = now + self.PERIOD
            self._loop.call_later(self.PERIOD, self._tick)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_times.append(time.perf_counter() - self._gc_started)

    def stop(self) -> None:
        self._running = False
        self._window = (self._window[0], time.perf_counter())
        gc.callbacks.remove(self._on_gc)

    def summary(self) -> dict[str, float]:
        lags = [1000 * x for x in self.lags]
        window = self._window[1] - self._window[0]
        return {
            "client_lag_p99_ms": round(percentile(lags, 0.99), 2),
            "client_lag_max_ms": round(max(lags, default=0.0), 2),
            "client_gc_max_ms": round(1000 * max(self.gc_times, default=0.0), 2),
            "client_gc_ms_per_s": round(1000 * sum(self.gc_times) / max(1e-9, window), 2),
        }


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.deliveries: list[float] = []
        self.all4: list[float] = []
        self.sent: dict[tuple[str, int], tuple[float, list[float]]] = {}
        """(table, seat) -> when its action was sent, and when each of the four clients received it."""
        self.measuring = False
        self.closing = False
        self.actions = 0
        self.errors = 0
        self.error_codes: dict[str, int] = {}
        self.dropped = 0
        self.games = 0

    def on_event(self, seat: Seat, message: dict[str, Any], now: float) -> None:
        event = message["event"]
        kind = event["kind"]
        if kind == "play" or kind == "pass":
            pending = self.sent.get((message["table"], event["seat"]))
            if pending is None:
                return
            arrivals = pending[1]
            arrivals.append(now)
            if len(arrivals) == 4:
                del self.sent[(message["table"], event["seat"])]
                if self.measuring:
                    started = pending[0]
                    self.deliveries += [t - started for t in arrivals]
                    self.all4.append(arrivals[-1] - started)
        elif kind == "game_over" and seat.view is not None and seat.view.get("seat") == 0:
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
            self.sent[(seat.table, mover)] = (time.perf_counter(), [])
            if mine["can_pass"] and (not mine["legal_plays"] or len(mine["legal_plays"]) > 3):
                answer = await seat.request("pass", table=seat.table)
            else:
                answer = await seat.request("play", table=seat.table, cards=mine["legal_plays"][0])
            if self.measuring and answer["type"] == "ack":
                self.actions += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.nodes is None:
        return await run_on(args, [free_port()], [])
    from cluster_setup import Backing

    with Backing(args.pg, args.redis) as backing:
        ports = [free_port() for _ in range(max(1, args.nodes))]
        extra = [backing.node_args(i) if args.nodes else backing.db_args() for i in range(len(ports))]
        redis0 = backing.redis_cpu()
        result = await run_on(args, ports, extra)
        result["nodes"] = args.nodes
        result["redis_cpu_ms_per_action"] = (
            round(
                1000 * (backing.redis_cpu() - redis0) / max(1, result["actions"]),
                3,
            )
            if args.nodes
            else 0.0
        )
        return result


async def run_on(args: argparse.Namespace, ports: list[int], extra: list[list[str]]) -> dict[str, Any]:
    """The benchmark against one server per port (``extra``: each one's added arguments)."""
    servers = [start_server(args, port, extra[i] if extra else [], i == 0) for i, port in enumerate(ports)]
    try:
        return await measure(args, servers, ports)
    finally:
        stop_servers(servers)


def stop_servers(servers: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to every server, then each is waited for (killed after 30 s)."""
    for server in servers:
        server.send_signal(signal.SIGTERM)
    for server in servers:
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()


def start_server(
    args: argparse.Namespace, port: int, extra: list[str], first: bool
) -> subprocess.Popen[bytes]:
    """A server; ``first``: the one profiled (``--profile``, ``--callgrind``)."""
    data = Path(tempfile.mkdtemp(prefix="niugui-load-"))
    profiled = [str(ROOT / "bench" / "serve_profiled.py"), args.profile]
    traced = [str(ROOT / "bench" / "serve_traced.py"), args.trace]
    module = ["-m", "niugui.cli.main"]
    wrap = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={args.callgrind}"]
    cmd = [
        *(wrap if args.callgrind and first else []),
        sys.executable,
        *(profiled if args.profile and first else traced if args.trace and first else module),
        "serve",
        "--port",
        str(port),
        "--data",
        str(data),
        "--rate-limit",
        "100",
        # every client is on loopback: per-address fair-use limits would count them as one
        *([] if args.protocol1 else ["--exempt", "127.0.0.1"]),
        "--log-level",
        "warning",
        *extra,
        *args.server_args,
    ]
    with open(data / "server.log", "wb") as log:
        pin = (lambda: os.sched_setaffinity(0, {0})) if args.pin else None
        return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log, preexec_fn=pin)


def cpu_of(servers: list[subprocess.Popen[bytes]]) -> tuple[float, float]:
    times = [proc_cpu_seconds(s.pid) for s in servers]
    return sum(t[0] for t in times), sum(t[1] for t in times)


def syscalls_of(servers: list[subprocess.Popen[bytes]]) -> tuple[int, ...]:
    counts = [proc_syscalls(s.pid) for s in servers]
    return tuple(sum(c[i] for c in counts) for i in range(3))


async def wait_healthy(ports: list[int], tries: int = 300) -> None:
    """Until every server answers ``/healthz`` (``tries`` attempts each, 0.1 s apart when refused)."""
    for other in ports:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{other}", timeout=60) as http:
            for _ in range(tries):
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)


async def seat_tables(
    bench: Bench, ports: list[int], n: int, first: int = 0
) -> tuple[list[Seat], list[list[Seat]], float]:
    """Sign up 4n guests on the first server, connect each (seat s of table t to node (t + s) % nodes:
    every table spans the nodes), make n tables and seat four clients at each. ``first``: how many
    tables the servers already have (so names and nodes carry on). Returns the seats, the tables'
    groups of four and the seconds the connections took."""
    limit = asyncio.Semaphore(50)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports[0]}", timeout=60) as http:

        async def guest(i: int) -> str:
            async with limit:
                reply = await http.post("/api/guest", json={"nickname": f"load{i}"})
                for _ in range(10):  # 503: the database was busy (a loaded machine); as asked, again
                    if reply.status_code != 503:
                        break
                    await asyncio.sleep(float(reply.headers.get("Retry-After", "1")))
                    reply = await http.post("/api/guest", json={"nickname": f"load{i}"})
                reply.raise_for_status()
                token: str = reply.json()["token"]
                return token

        tokens = await asyncio.gather(*(guest(4 * first + i) for i in range(4 * n)))
    seats = [Seat(bench, t) for t in tokens]

    async def open_seat(index: int, seat: Seat) -> None:
        async with limit:
            await seat.open(ports[(first + index // 4 + index % 4) % len(ports)])

    connect_started = time.perf_counter()
    await asyncio.gather(*(open_seat(i, s) for i, s in enumerate(seats)))
    connect_seconds = time.perf_counter() - connect_started
    tables = [seats[4 * i : 4 * i + 4] for i in range(n)]

    async def seat_table(group: list[Seat]) -> None:
        async with limit:
            ack = await group[0].request("create_table", settings={"name": "load", "turn_seconds": 120})
            assert ack["type"] == "ack", ack
            table = ack["data"]["table"]["id"]
            for number, seat in enumerate(group):
                seat.table = table
                answer = await seat.request("sit", table=table, seat=number)
                assert answer["type"] == "ack", answer

    await asyncio.gather(*(seat_table(g) for g in tables))
    return seats, tables, connect_seconds


class Window:
    """One measuring window over tables that are playing: the actions acknowledged and the deliveries
    completed while it is open, the servers' CPU and system calls, the generator's own CPU and stalls.
    ``stop()`` ends the counting of actions; ``result()`` reads the rest and gives the figures."""

    def __init__(self, bench: Bench, servers: list[subprocess.Popen[bytes]]) -> None:
        self.bench, self.servers = bench, servers
        bench.deliveries, bench.all4, bench.actions = [], [], 0
        self.errors0, self.dropped0, self.games0 = bench.errors, bench.dropped, bench.games
        bench.measuring = True
        self.own = SelfTrace()
        self.load0 = os.getloadavg()[0]
        self.calls0 = syscalls_of(servers)
        self.loop0 = sum(loop_thread_cpu_seconds(s.pid) for s in servers)
        self.cpu0, self.client_cpu0, self.wall0 = cpu_of(servers), time.process_time(), time.perf_counter()

    def stop(self) -> None:
        self.bench.measuring = False

    def result(self) -> dict[str, Any]:
        bench, servers = self.bench, self.servers
        self.stop()
        self.own.stop()
        calls1 = syscalls_of(servers)
        loop1 = sum(loop_thread_cpu_seconds(s.pid) for s in servers)
        (user1, sys1), client_cpu1, wall1 = cpu_of(servers), time.process_time(), time.perf_counter()
        (user0, sys0), wall = self.cpu0, wall1 - self.wall0
        cpu0, cpu1 = user0 + sys0, user1 + sys1
        lat_ms = [x * 1000 for x in bench.deliveries]
        all4_ms = [x * 1000 for x in bench.all4]
        return {
            "seconds": round(wall, 1),
            "actions": bench.actions,
            "actions_per_s": round(bench.actions / wall, 1),
            "deliveries": len(lat_ms),
            "p50_ms": round(percentile(lat_ms, 0.50), 2),
            "p99_ms": round(percentile(lat_ms, 0.99), 2),
            "all4_p50_ms": round(percentile(all4_ms, 0.50), 2),
            "all4_p99_ms": round(percentile(all4_ms, 0.99), 2),
            "max_ms": round(max(lat_ms), 2) if lat_ms else None,
            "mean_ms": round(statistics.fmean(lat_ms), 2) if lat_ms else None,
            "server_cpu_percent": round(100 * (cpu1 - cpu0) / wall, 1),
            "server_cpu_ms_per_action": round(1000 * (cpu1 - cpu0) / max(1, bench.actions), 3),
            "server_loop_share": round((loop1 - self.loop0) / max(1e-9, cpu1 - cpu0), 2),
            "server_system_share": round((sys1 - sys0) / max(1e-9, cpu1 - cpu0), 2),
            **{
                f"server_{name}_per_action": round((after - before) / max(1, bench.actions), 2)
                for name, before, after in zip(("reads", "writes", "waits"), self.calls0, calls1, strict=True)
            },
            "client_cpu_percent": round(100 * (client_cpu1 - self.client_cpu0) / wall, 1),
            "client_cpu_ms_per_action": round(
                1000 * (client_cpu1 - self.client_cpu0) / max(1, bench.actions), 3
            ),
            **self.own.summary(),
            "errors": bench.errors - self.errors0,
            "dropped_connections": bench.dropped - self.dropped0,
            "games_finished": bench.games - self.games0,
            "load_average_before": round(self.load0, 2),
            "load_average_after": round(os.getloadavg()[0], 2),
        }


def callgrind_control(server: subprocess.Popen[bytes], state: str) -> None:
    """Switch the instruction counting of a server run under callgrind (``--instr-atstart=no``)."""
    subprocess.run(["callgrind_control", "-i", state, str(server.pid)], check=True, capture_output=True)


async def measure(
    args: argparse.Namespace, servers: list[subprocess.Popen[bytes]], ports: list[int]
) -> dict[str, Any]:
    bench = Bench(args)
    await wait_healthy(ports, 3000 if args.callgrind else 300)
    idle_rss = sum(proc_rss_bytes(s.pid) for s in servers)
    n = args.tables
    seats, tables, connect_seconds = await seat_tables(bench, ports, n)
    connected_rss = sum(proc_rss_bytes(s.pid) for s in servers)
    quiet_collector()
    idle0 = sum(cpu_of(servers)), time.perf_counter()
    await asyncio.sleep(args.idle)
    idle1 = sum(cpu_of(servers)), time.perf_counter()
    idle_percent = 100 * (idle1[0] - idle0[0]) / max(1e-9, idle1[1] - idle0[1])
    stop = time.perf_counter() + args.warmup + args.seconds
    loops = [asyncio.create_task(bench.table_loop(g, stop)) for g in tables]
    await asyncio.sleep(args.warmup)
    if args.callgrind:
        callgrind_control(servers[0], "on")
    if args.profile or args.trace:
        servers[0].send_signal(signal.SIGUSR1)
    window = Window(bench, servers)
    await asyncio.sleep(args.seconds)
    window.stop()
    if args.callgrind:
        callgrind_control(servers[0], "off")
    if args.profile or args.trace:
        servers[0].send_signal(signal.SIGUSR2)
    figures = window.result()
    await asyncio.gather(*loops, return_exceptions=True)
    result = {
        "tables": n,
        "connections": 4 * n,
        **figures,
        "target_actions_per_s": n,
        "server_idle_cpu_percent": round(idle_percent, 2),
        "server_rss_idle_mb": round(idle_rss / 2**20, 1),
        "server_rss_connected_mb": round(connected_rss / 2**20, 1),
        "server_kib_per_connection": round((connected_rss - idle_rss) / 1024 / (4 * n), 1),
        "connect_seconds": round(connect_seconds, 1),
        "deflate_connections": sum(seat.inflater is not None for seat in seats),
        "errors": bench.errors,
        "error_codes": ",".join(f"{k}:{v}" for k, v in sorted(bench.error_codes.items())) or "-",
        "dropped_connections": bench.dropped,
        "games_finished": bench.games,
        "load_average_after": round(os.getloadavg()[0], 2),
    }
    if args.trace:
        await asyncio.sleep(1)  # the server writes its trace at SIGUSR2
        print(f"# server trace ({args.trace}):", Path(args.trace).read_text(), flush=True)
    bench.closing = True
    for seat in seats:
        if seat.transport is not None:
            seat.transport.close()
    return result


def build_parser() -> argparse.ArgumentParser:
    """The options (``bench/capacity_bench.py`` takes its defaults from here)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 100], help="N (several: one run each)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measuring window per run")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument(
        "--idle",
        type=float,
        default=5.0,
        help="seconds of server CPU measured with every seat taken, before any action",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the server (and its threads) on CPU 0, the load generator on CPU 1",
    )
    parser.add_argument(
        "--offer-deflate",
        action="store_true",
        help="offer permessage-deflate as browsers do (a server that takes it compresses every frame)",
    )
    parser.add_argument(
        "--protocol1",
        action="store_true",
        help="a server from before first-message auth (issue 8's baseline, 64b003d): the token in the URL",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per run")
    parser.add_argument("--profile", metavar="FILE", help="run the server under cProfile, stats to FILE")
    parser.add_argument(
        "--trace", metavar="FILE", help="trace the server's event loop (bench/serve_traced.py), JSON to FILE"
    )
    parser.add_argument(
        "--callgrind",
        metavar="FILE",
        help="run the server under valgrind's callgrind, counting instructions in the measuring window only",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        nargs="+",
        help="cluster nodes on Redis and PostgreSQL (several: one run each; 0: one process on PostgreSQL)",
    )
    parser.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--server-arg", dest="server_args", action="append", default=[],
                        help="an extra argument for niugui serve (repeat as needed)")  # fmt: skip
    return parser


def main() -> int:
    args = build_parser().parse_args()
    _use_uvloop()
    if args.pin:
        os.sched_setaffinity(0, {1})
        print("# niugui load bench: the server on CPU 0, the load generator on CPU 1", flush=True)
    else:
        print(f"# niugui load bench on {os.cpu_count()} cores; client and server share them", flush=True)
    for n, nodes in [(n, k) for n in args.tables for k in (args.nodes or [None])]:
        one = argparse.Namespace(**{**vars(args), "tables": n, "nodes": nodes})
        result = asyncio.run(run(one))
        if args.json:
            print(json.dumps(result), flush=True)
        else:
            print(" ".join(f"{k}={v}" for k, v in result.items()), flush=True)
    return 0


def _use_uvloop() -> None:
    try:
        import uvloop
    except ImportError:  # the standard loop works too, with a costlier client
        return
    policy: Callable[[], asyncio.AbstractEventLoopPolicy] = uvloop.EventLoopPolicy
    asyncio.set_event_loop_policy(policy())


if __name__ == "__main__":
    sys.exit(main())
