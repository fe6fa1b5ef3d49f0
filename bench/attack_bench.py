"""Attack benchmark of ``niugui serve`` (issue 15): findings 1, 3, 5 and 11 repeated at full size on
loopback, and what a bystander sees meanwhile — its ping (p50/p99) and its bot table's pace (moves/s)
— next to the same figures with no attack, measured just before.

    nice -n 10 .venv/bin/python bench/attack_bench.py --seconds 15
    .venv/bin/python bench/attack_bench.py --before /tmp/niugui-before --rounds 2   # before vs after

The bystander (127.0.0.1) sits at a table with three ``expert`` bots and plays its own turns at once,
so its table moves at the bots' pace (``--bot-delay``); it pings every 100 ms. Each attacker runs in a
process of its own from other loopback addresses (127.0.0.2, .3), as it would from another machine:

- ``lobby`` (finding 1): up to 100 guests create up to 20 tables each, then one guest's 8 connections
  ask for the lobby at 19 messages/s each, 4 HTTP clients ask ``GET /api/tables`` without pause, and
  one more connection asks for the lobby and never reads what it is sent;
- ``connections`` (finding 3): one guest opens up to 4,000 WebSockets; meanwhile a newcomer (127.0.0.3)
  tries ``POST /api/guest`` and ``/healthz`` every second;
- ``login`` (finding 5): 16 clients flood ``/api/login`` (8, wrong passwords) and ``/api/register`` (8);
- ``search`` (finding 11): one guest opens 20 tables of ``search`` bots (托管 in its own seat) and keeps
  them playing;
- issue 33: ``quickplay`` (finding 1: 59 guests whose preferences never fit re-join 40 times a
  second), ``pings`` and ``bigframes`` (finding 2: two connections write WebSocket pings, or 16 KB
  text frames, as fast as the socket takes them, reconnecting when cut), ``slowloris`` (finding 4:
  up to 1,100 half-sent requests held from one address — with ``--server-nofile 1024`` the server
  runs out of descriptors as it did at 20,000), ``opening`` (finding 12: one address opens
  connections as fast as it can, 8 at a time).

Every phase is bounded (``--seconds`` of measuring, setup capped at ``--setup`` seconds) and every
count is capped as above. With ``--before DIR`` the same phases also run against the server of
another checkout (e.g. a worktree of the commit before the fixes), alternating after/before per round.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import secrets
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
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = (
    "lobby",
    "connections",
    "login",
    "search",
    "quickplay",
    "pings",
    "bigframes",
    "slowloris",
    "opening",
)
SOURCES = {
    "lobby": "127.0.0.2",
    "connections": "127.0.0.4",
    "login": "127.0.0.5",
    "search": "127.0.0.6",
    "quickplay": "127.0.0.7",
    "pings": "127.0.0.8",
    "bigframes": "127.0.0.9",
    "slowloris": "127.0.0.10",
    "opening": "127.0.0.11",
}
"""Each attack from an address of its own, so that one's spent per-address allowance (guest accounts
an hour, say) does not blunt the next."""
NEWCOMER = "127.0.0.3"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system, /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def open_ws(
    port: int, token: str, source: str = "127.0.0.1", max_queue: int | None = 64
) -> ClientConnection:
    """An authenticated WebSocket, by the protocol the server speaks: the ``auth`` message (2), or
    the token in the URL (1, the server before issue 15)."""
    ws = await connect(
        f"ws://127.0.0.1:{port}/ws",
        local_addr=(source, 0),
        max_size=2**24,
        max_queue=max_queue,
        open_timeout=30,
        ping_interval=None,
    )
    try:
        await ws.send(json.dumps({"type": "auth", "id": "auth", "token": token}))
        first = json.loads(await asyncio.wait_for(ws.recv(), 30))
    except ConnectionClosed:  # a server of protocol 1 closes at once: no token in the URL
        first = {}
    if first.get("type") == "welcome":
        return ws
    if first.get("code") == "rate_limited":
        await ws.close()
        raise ConnectionRefusedError(first.get("message"))
    with contextlib.suppress(Exception):
        await ws.close()
    ws = await connect(
        f"ws://127.0.0.1:{port}/ws?token={token}",
        local_addr=(source, 0),
        max_size=2**24,
        max_queue=max_queue,
        open_timeout=30,
        ping_interval=None,
    )
    first = json.loads(await ws.recv())
    if first.get("type") != "welcome":
        await ws.close()
        raise ConnectionRefusedError(str(first.get("message")))
    return ws


def http_client(port: int, source: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=source)
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=30)


async def guest(http: httpx.AsyncClient, name: str) -> str | None:
    reply = await http.post("/api/guest", json={"nickname": name})
    return str(reply.json()["token"]) if reply.status_code == 200 else None


class Client:
    """Requests with ids over one socket; a reader keeps the latest events."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = 0
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.on_message: Any = None
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for frame in self.ws:
                message = json.loads(frame)
                if message.get("type") in ("ack", "error"):
                    future = self.waiting.pop(str(message.get("id")), None)
                    if future is not None and not future.done():
                        future.set_result(message)
                elif self.on_message is not None:
                    self.on_message(message)

    async def request(self, kind: str, timeout: float = 60, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        request_id = f"{kind}{self.ids}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        await self.ws.send(json.dumps({"type": kind, "id": request_id, **fields}))
        return await asyncio.wait_for(future, timeout)


# ---- the attacks (each in a process of its own) -------------------------------------------------------


async def attack_lobby(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    async with http_client(port, SOURCES["lobby"]) as http:
        deadline = time.monotonic() + setup
        tokens = [t for t in await asyncio.gather(*(guest(http, f"farm{n}") for n in range(100))) if t]
        out["guests"] = len(tokens)

        async def make_tables(token: str) -> int:
            made = 0
            with contextlib.suppress(Exception):
                client = Client(await open_ws(port, token, SOURCES["lobby"]))
                for n in range(20):
                    if time.monotonic() > deadline:
                        break
                    answer = await client.request("create_table", settings={"name": f"spam {n}"})
                    made += answer["type"] == "ack"
                await client.ws.close()
            return made

        out["tables"] = sum(await asyncio.gather(*(make_tables(t) for t in tokens[:100])))
        token = tokens[0]
        askers = [await open_ws(port, token, SOURCES["lobby"]) for _ in range(8)]
        sloth = await open_ws(port, token, SOURCES["lobby"], max_queue=1)
        ready.set()
        out["asked"] = 0

        async def ask(ws: ClientConnection, read: bool) -> None:
            with contextlib.suppress(Exception):
                while not stop.is_set():
                    await ws.send(json.dumps({"type": "list_tables", "id": "l"}))
                    out["asked"] += 1
                    await asyncio.sleep(1 / 19)
                    while read:
                        try:
                            await asyncio.wait_for(ws.recv(), 0.001)
                        except TimeoutError:
                            break

        async def hammer() -> None:
            while not stop.is_set():
                with contextlib.suppress(Exception):
                    await http.get("/api/tables")
                    out["http"] = out.get("http", 0) + 1

        tasks = [ask(ws, True) for ws in askers] + [ask(sloth, False)] + [hammer() for _ in range(4)]
        await asyncio.gather(*tasks)


async def attack_connections(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    async with http_client(port, SOURCES["connections"]) as http, http_client(port, NEWCOMER) as newcomer:
        token = await guest(http, "hoarder")
        assert token is not None
        sockets: list[ClientConnection] = []
        out["refused"] = out["opened"] = 0
        deadline = time.monotonic() + setup

        async def one() -> None:
            try:
                sockets.append(await open_ws(port, token, SOURCES["connections"], max_queue=4))
                out["opened"] += 1
            except Exception:
                out["refused"] += 1

        while len(sockets) + out["refused"] < 4000 and time.monotonic() < deadline:
            await asyncio.gather(*(one() for _ in range(100)))
        ready.set()
        out["newcomer_ok"] = out["newcomer_failed"] = 0
        while not stop.is_set():
            try:
                ok = (await newcomer.post("/api/guest", json={"nickname": "new"})).status_code == 200
                ok = ok and (await newcomer.get("/healthz")).status_code == 200
            except Exception:
                ok = False
            out["newcomer_ok" if ok else "newcomer_failed"] += 1
            await asyncio.sleep(1)
        for ws in sockets:
            with contextlib.suppress(Exception):
                await ws.close()


async def attack_login(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    async with http_client(port, SOURCES["login"]) as http:
        await http.post("/api/register", json={"username": "victim", "password": "the-password"})
        ready.set()
        statuses: dict[str, int] = {}

        async def flood(register: bool) -> None:
            while not stop.is_set():
                try:
                    if register:
                        body = {"username": f"u{secrets.token_hex(6)}", "password": "pass-word-1"}
                        reply = await http.post("/api/register", json=body)
                    else:
                        body = {"username": "victim", "password": f"guess-{secrets.token_hex(4)}"}
                        reply = await http.post("/api/login", json=body)
                    key = str(reply.status_code)
                except Exception:
                    key = "failed"
                statuses[key] = statuses.get(key, 0) + 1
                if key == "429":
                    await asyncio.sleep(0.01)  # the server said to wait: a bot would, a little

        await asyncio.gather(*(flood(n % 2 == 0) for n in range(16)))
        out["statuses"] = statuses


async def attack_search(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    async with http_client(port, SOURCES["search"]) as http:
        token = await guest(http, "thinker")
        assert token is not None
        client = Client(await open_ws(port, token, SOURCES["search"]))
        tables: list[str] = []

        def on_message(message: dict[str, Any]) -> None:
            event = (message.get("event") or {}).get("kind")
            if event == "game_over" and message.get("table") in tables:
                asyncio.get_running_loop().create_task(client.request("ready", table=message["table"]))

        client.on_message = on_message
        for _ in range(20):
            answer = await client.request(
                "create_table", settings={"bot_level": "search", "turn_seconds": 600}
            )
            if answer["type"] != "ack":
                continue
            table = answer["data"]["table"]["id"]
            tables.append(table)
            await client.request("sit", table=table, seat=0)
            await client.request("autoplay", table=table, on=True)
            await client.request("fill_bots", table=table)
        out["tables"] = len(tables)
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.2)


# ---- issue 33's floods: findings 1, 2, 4 and 12 --------------------------------------------------------


async def attack_quickplay(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    """Finding 1: 59 guests of one address wait in quick play with preferences that never fit (43
    name a turn timer each, 16 a game count each: any two fit, no three), and re-join 40 times a
    second between them."""
    source = SOURCES["quickplay"]
    async with http_client(port, source) as http:
        tokens = [await guest(http, f"q{n}") for n in range(59)]
    clients = [Client(await open_ws(port, t, source)) for t in tokens if t is not None]
    wishes = [{"turn_seconds": 5 + n} for n in range(43)] + [{"games": 1 + n} for n in range(16)]
    for client, wish in zip(clients, wishes, strict=False):
        await client.request("quick_play", **wish)
    ready.set()
    out["sent"] = out["refused"] = 0
    n = 0
    while not stop.is_set():
        client, wish = clients[n % len(clients)], wishes[n % len(clients)]
        n += 1

        async def one(client: Client = client, wish: dict[str, int] = wish) -> None:
            with contextlib.suppress(Exception):
                answer = await client.request("quick_play", timeout=30, **wish)
                out["refused"] += answer.get("code") == "rate_limited"

        asyncio.get_running_loop().create_task(one())
        out["sent"] += 1
        await asyncio.sleep(1 / 40)


def masked_frame(opcode: int, payload: bytes) -> bytes:
    """A client frame of ``payload`` (masked with a zero key, as RFC 6455 allows)."""
    size = len(payload)  # under 64 KiB
    header = (
        bytes((0x80 | opcode, 0x80 | size))
        if size < 126
        else bytes((0x80 | opcode, 0xFE)) + size.to_bytes(2, "big")
    )
    return header + b"\0\0\0\0" + payload


async def flood_frames(
    port: int, source: str, frame: bytes, per_write: int, links: int, stop: Any, out: dict[str, Any]
) -> None:
    """``links`` connections of one guest write ``frames`` as fast as the socket takes them; one
    that is closed opens again (everything the server allows)."""
    async with http_client(port, source) as http:
        token = await guest(http, "flooder")
    assert token is not None
    out["frames_written"] = out["reopened"] = 0
    frames = frame * per_write

    async def link() -> None:
        while not stop.is_set():
            try:
                ws = await open_ws(port, token, source)
            except Exception:
                await asyncio.sleep(0.05)
                continue
            transport = ws.transport
            while not stop.is_set() and not transport.is_closing():
                if transport.get_write_buffer_size() < 1 << 20:
                    transport.write(frames)
                    out["frames_written"] += per_write
                await asyncio.sleep(0)
            out["reopened"] += 1
            with contextlib.suppress(Exception):
                ws.transport.abort()

    await asyncio.gather(*(link() for _ in range(links)))


async def attack_pings(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    """Finding 2: two connections send WebSocket pings (control frames) without pause."""
    ready.set()
    await flood_frames(port, SOURCES["pings"], masked_frame(0x9, b"x"), 200, 2, stop, out)


async def attack_bigframes(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    """Finding 2: two connections send 16 KB text frames without pause (all but the burst refused)."""
    ready.set()
    text = json.dumps({"type": "ping", "id": "x", "pad": "x" * 16_000}).encode()
    await flood_frames(port, SOURCES["bigframes"], masked_frame(0x1, text), 4, 2, stop, out)


async def attack_slowloris(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    """Finding 4: one address keeps up to 1,100 requests half sent (never the blank line), opening
    new ones as the server closes them; a newcomer (another address) tries /healthz and
    /api/guest every second."""
    source = SOURCES["slowloris"]
    held: set[asyncio.StreamWriter] = set()
    out["opened"] = out["closed_by_server"] = 0

    async def hold() -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            except Exception:
                await asyncio.sleep(0.05)
                continue
            out["opened"] += 1
            held.add(writer)
            with contextlib.suppress(Exception):
                await reader.read()  # until the server closes it
            held.discard(writer)
            out["closed_by_server"] += 1
            writer.close()

    tasks = [asyncio.get_running_loop().create_task(hold()) for _ in range(1100)]
    deadline = time.monotonic() + setup
    while len(held) < 1100 and time.monotonic() < deadline and out["opened"] < 1100:
        await asyncio.sleep(0.1)
    ready.set()
    await newcomer_checks(port, stop, out)
    out["held_at_end"] = len(held)
    for task in tasks:
        task.cancel()
    for writer in held:
        writer.transport.abort()


async def newcomer_checks(port: int, stop: Any, out: dict[str, Any]) -> None:
    out["newcomer_ok"] = out["newcomer_failed"] = 0
    async with http_client(port, NEWCOMER) as newcomer:
        while not stop.is_set():
            try:
                ok = (await newcomer.get("/healthz", timeout=5)).status_code == 200
                ok = (
                    ok
                    and (await newcomer.post("/api/guest", json={"nickname": "new"}, timeout=5)).status_code
                    == 200
                )
            except Exception:
                ok = False
            out["newcomer_ok" if ok else "newcomer_failed"] += 1
            await asyncio.sleep(1)


async def attack_opening(port: int, ready: Any, stop: Any, setup: float, out: dict[str, Any]) -> None:
    """Finding 12: one address opens connections as fast as it can (8 at a time), each asking
    /healthz and closing."""
    source = SOURCES["opening"]
    out["opened"] = out["answered"] = 0
    ready.set()

    async def opener() -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
                out["opened"] += 1
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                out["answered"] += (await reader.read(12)).startswith(b"HTTP/1.1")
                writer.close()
            except Exception:
                await asyncio.sleep(0)

    await asyncio.gather(*(opener() for _ in range(8)))


def run_attack(kind: str, port: int, ready: Any, stop: Any, setup: float, results: Any) -> None:
    out: dict[str, Any] = {}

    async def main() -> None:
        with contextlib.suppress(Exception):
            await globals()[f"attack_{kind}"](port, ready, stop, setup, out)

    try:
        asyncio.run(main())
    finally:
        ready.set()
        results.put(out)


# ---- the bystander and the phases ---------------------------------------------------------------------


class Bystander:
    """A player at a bot table who plays its own turns at once and pings every 100 ms."""

    def __init__(self) -> None:
        self.moves: list[float] = []
        self.rtts: list[tuple[float, float]] = []  # (when sent, round trip)
        self.pending: dict[str, float] = {}
        self.table = ""
        self.client: Client | None = None
        self.tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, request: Any) -> None:
        task = asyncio.get_running_loop().create_task(request)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def start(self, port: int) -> None:
        async with http_client(port, "127.0.0.1") as http:
            token = await guest(http, "bystander")
        assert token is not None
        self.client = client = Client(await open_ws(port, token))
        client.on_message = self.on_message
        answer = await client.request("create_table", settings={"name": "bystander", "turn_seconds": 600})
        self.table = answer["data"]["table"]["id"]
        await client.request("sit", table=self.table, seat=0)
        await client.request("fill_bots", table=self.table)
        asyncio.get_running_loop().create_task(self.pinger())

    def on_message(self, message: dict[str, Any]) -> None:
        assert self.client is not None
        if message.get("table") != self.table or message.get("type") != "event":
            return
        kind = message["event"]["kind"]
        if kind in ("play", "pass"):
            self.moves.append(time.perf_counter())
        if kind == "game_over":
            self.spawn(self.client.request("ready", table=self.table))
        view = message.get("view")
        if view and not view["over"] and view["to_move"] == view["seat"]:
            if view["can_pass"] and (not view["legal_plays"] or len(view["legal_plays"]) > 3):
                self.spawn(self.client.request("pass", table=self.table))
            else:
                self.spawn(self.client.request("play", table=self.table, cards=view["legal_plays"][0]))

    async def pinger(self) -> None:
        assert self.client is not None
        while True:
            sent = time.perf_counter()

            async def one(sent: float = sent) -> None:
                assert self.client is not None
                with contextlib.suppress(Exception):
                    await self.client.request("ping", timeout=120)
                    self.rtts.append((sent, time.perf_counter() - sent))

            asyncio.get_running_loop().create_task(one())
            await asyncio.sleep(0.1)

    def window(self, start: float, end: float) -> dict[str, float]:
        rtts = [r for s, r in self.rtts if start <= s < end]
        moves = [m for m in self.moves if start <= m < end]
        return {
            "ping_p50_ms": round(1000 * percentile(rtts, 0.5), 1),
            "ping_p99_ms": round(1000 * percentile(rtts, 0.99), 1),
            "pings": len(rtts),
            "moves_per_s": round(len(moves) / (end - start), 2),
        }


async def phase(
    args: argparse.Namespace, kind: str | None, port: int, pid: int, bystander: Bystander
) -> dict[str, Any]:
    ctx = multiprocessing.get_context("spawn")
    ready, stop, results = ctx.Event(), ctx.Event(), ctx.Queue()
    process = None
    rss0 = rss_mib(pid)
    if kind is not None:
        process = ctx.Process(target=run_attack, args=(kind, port, ready, stop, args.setup, results))
        process.start()
        while not ready.is_set():
            await asyncio.sleep(0.1)
    start, cpu0 = time.perf_counter(), cpu_seconds(pid)
    await asyncio.sleep(args.seconds)
    end, cpu1 = time.perf_counter(), cpu_seconds(pid)
    await asyncio.sleep(2.0)  # pings sent late in the window get their answers
    figures: dict[str, Any] = {"phase": kind or "baseline", **bystander.window(start, end)}
    figures["server_cpu_pct"] = round(100 * (cpu1 - cpu0) / (end - start))
    figures["server_rss_mib"] = round(rss_mib(pid), 1)
    figures["rss_growth_mib"] = round(figures["server_rss_mib"] - rss0, 1)
    if process is not None:
        stop.set()
        with contextlib.suppress(Exception):
            figures["attack"] = results.get(timeout=60)
        process.join(30)
        if process.is_alive():
            process.kill()
        await asyncio.sleep(3.0)  # let the server settle before the next baseline
    return figures


async def run_server(
    args: argparse.Namespace, root: Path, label: str, extra: list[str] | None = None
) -> list[dict[str, Any]]:
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix=f"niugui-attack-{label}-"))
    cmd = [
        sys.executable,
        "-m",
        "niugui.cli.main",
        "serve",
        "--port",
        str(port),
        "--data",
        str(data),
        "--bot-delay",
        str(args.bot_delay),
        "--log-level",
        "warning",
        *(extra or []),
    ]
    env = {**os.environ, "PYTHONPATH": str(root)}
    with open(data / "server.log", "wb") as log:
        server = subprocess.Popen(
            cmd,
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
            preexec_fn=nofile(args.server_nofile),
        )
    try:
        async with httpx.AsyncClient(timeout=5) as http:
            for _ in range(300):
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200:
                        break
                await asyncio.sleep(0.1)
        bystander = Bystander()
        await bystander.start(port)
        await asyncio.sleep(3.0)  # warm up
        rows = []
        for kind in args.attacks:
            for step in (None, kind):
                row = await phase(args, step, port, server.pid, bystander)
                row["server"] = label
                rows.append(row)
                print(json.dumps(row, ensure_ascii=False), flush=True)
        return rows
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()


def nofile(limit: int | None) -> Any:
    """Give the server at most ``limit`` open files (its soft and hard limit), or leave it be."""
    if limit is None:
        return None

    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    return apply


def summary(rows: list[dict[str, Any]]) -> None:
    """Per server and attack: the bystander's figures under attack against the baseline just before."""
    print("\n| server | attack | ping p99 ms (base → attack) | moves/s (base → attack) | pace | goal |")
    print("|---|---|---|---|---|---|")
    groups: dict[tuple[str, str], list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for base, hit in zip(rows[::2], rows[1::2], strict=True):
        groups.setdefault((hit["server"], hit["phase"]), []).append((base, hit))
    for (server, kind), pairs in groups.items():
        b99 = statistics.median(b["ping_p99_ms"] for b, _ in pairs)
        a99 = statistics.median(a["ping_p99_ms"] for _, a in pairs)
        bm = statistics.median(b["moves_per_s"] for b, _ in pairs)
        am = statistics.median(a["moves_per_s"] for _, a in pairs)
        pace = am / bm if bm else float("nan")
        goal = "met" if a99 < 100 and pace >= 0.9 else "missed"
        print(f"| {server} | {kind} | {b99:g} → {a99:g} | {bm:g} → {am:g} | {pace:.0%} | {goal} |")


async def main_async(args: argparse.Namespace) -> None:
    rows: list[dict[str, Any]] = []
    for _ in range(args.rounds):
        rows += await run_server(args, ROOT, "after")
        if args.before:
            rows += await run_server(args, Path(args.before), "before")
        if args.compare_args:
            rows += await run_server(args, ROOT, args.compare_args, args.compare_args.split())
    summary(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="measuring window of each phase")
    parser.add_argument("--setup", type=float, default=30.0, help="most seconds an attack may prepare")
    parser.add_argument("--bot-delay", type=float, default=0.2, help="the server's --bot-delay")
    parser.add_argument("--attacks", nargs="+", choices=ATTACKS, default=list(ATTACKS))
    parser.add_argument(
        "--before", metavar="DIR", help="also run the server of this checkout (before the fixes)"
    )
    parser.add_argument(
        "--server-nofile",
        type=int,
        metavar="N",
        help="the server's limit of open files (slowloris: descriptors run out sooner than 20,000)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds (after, then before, alternating)")
    parser.add_argument(
        "--compare-args",
        metavar="ARGS",
        help="instead of --before: the same server again with these extra arguments (e.g. a limit)",
    )
    args = parser.parse_args()
    load = os.getloadavg()
    print(
        f"# niugui attack bench on {os.cpu_count()} cores; load average {load[0]:.2f} {load[1]:.2f}",
        flush=True,
    )
    asyncio.run(main_async(args))
    print(f"# load average at the end {os.getloadavg()[0]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
