"""Test harness: the real server in a subprocess on a free loopback port, and scripted WebSocket players.

A module of its own (not conftest.py) so that test files import it by a name no other test
directory uses.

Nothing here waits a fixed time and then assumes something happened: every wait is for the thing
itself (a message, a turn, the end of a game), with a generous deadline — the machine may be busy —
and a failure that says what did not happen and what came last.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
from websockets.sync.client import ClientConnection, connect

from niugui.server.protocol import SERVER_ADAPTER

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0
"""Seconds any wait here allows by default: far more than anything takes on an idle machine, so that
only a real hang fails (a loaded machine is slow, not broken)."""

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``niugui serve`` as a child process."""

    def __init__(self, data: Path, *args: str, grace: float = 30.0, db: str | None = None) -> None:
        self.data = data
        self.args = list(args)
        self.grace = grace
        self.db = db
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        cmd = [
            sys.executable,
            "-m",
            "niugui.cli.main",
            "serve",
            "--port",
            str(self.port),
            "--data",
            str(self.data),
            "--grace",
            str(self.grace),
            "--bot-delay",
            "0",
            "--log-level",
            "warning",
            *self.args,
        ]
        if self.db:
            cmd += ["--db", self.db]
        self.data.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=log)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-3000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=5).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        log = self.log.read_text()[-3000:]
        raise RuntimeError(f"server did not answer /healthz within {WAIT:g} s: {log}")

    def kill(self) -> None:
        """SIGKILL: no cleanup at all."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def guest(self, nickname: str) -> dict[str, Any]:
        reply = httpx.post(self.url + "/api/guest", json={"nickname": nickname}, timeout=10)
        assert reply.status_code == 200, reply.text
        session: dict[str, Any] = reply.json()
        return session

    def get(self, path: str) -> Any:
        reply = httpx.get(self.url + path, timeout=10)
        assert reply.status_code == 200, (path, reply.status_code, reply.text)
        return reply.json()


class Player:
    """A scripted client: sends requests, keeps every message it receives."""

    _ids = itertools.count(1)

    def __init__(self, server: Server, nickname: str, session: dict[str, Any] | None = None) -> None:
        self.server = server
        self.session = session or server.guest(nickname)
        self.token: str = self.session["token"]
        self.account_id: str = self.session["account"]["id"]
        self.received: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []
        self.last_seq: dict[str, int] = {}
        self.views: dict[str, dict[str, Any] | None] = {}
        self.states: dict[str, dict[str, Any]] = {}
        self.ws: ClientConnection | None = None
        self.welcome: dict[str, Any] = {}
        self.connect()

    def connect(self) -> None:
        self.ws = connect(
            f"ws://127.0.0.1:{self.server.port}/ws", max_size=2**22, open_timeout=WAIT
        ).__enter__()
        self.ws.send(json.dumps({"type": "auth", "id": "auth", "token": self.token}))  # never in the URL
        self.welcome = self.recv()
        assert self.welcome["type"] == "welcome", self.welcome

    def drop(self) -> None:
        assert self.ws is not None
        self.ws.close()
        self.ws = None

    def recv(self, timeout: float = WAIT) -> dict[str, Any]:
        assert self.ws is not None
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        SERVER_ADAPTER.validate_python(message)  # every message follows the documented schema
        self.received.append(message)
        table = message.get("table")
        if message["type"] in ("event", "snapshot") and isinstance(table, str):
            if message["type"] == "event" and table in self.last_seq and not message.get("replay"):
                assert message["seq"] == self.last_seq[table] + 1, "per-table seq has no gaps"
            self.last_seq[table] = message["seq"]
            if message["view"] is not None or message["type"] == "snapshot":
                self.views[table] = message["view"]
            self.states[table] = message["state"]
        return message

    def send_raw(self, text: str) -> None:
        assert self.ws is not None
        self.ws.send(text)

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request; return its ack or error (other messages are kept)."""
        request_id = f"r{next(self._ids)}"
        self.send_raw(json.dumps({"type": kind, "id": request_id, **fields}))
        while True:
            try:
                message = self.recv()
            except TimeoutError:
                raise TimeoutError(
                    f"no answer to {kind} {fields} ({request_id}); last received: {self.tail()}"
                ) from None
            if message["type"] in ("ack", "error") and message["id"] == request_id:
                return message
            self.pending.append(message)

    def ok(self, kind: str, **fields: Any) -> dict[str, Any]:
        answer = self.request(kind, **fields)
        assert answer["type"] == "ack", answer
        return answer

    def tail(self, count: int = 6) -> list[tuple[Any, ...]]:
        """The last messages received, in short (for failure messages)."""
        return [
            (m["type"], m.get("id"), m.get("seq"), m.get("event") or m.get("message"))
            for m in self.received[-count:]
        ]

    def wait(
        self,
        predicate: Callable[[dict[str, Any]], bool],
        timeout: float = WAIT,
        what: str = "the awaited message",
    ) -> dict[str, Any]:
        """Read messages until one satisfies ``predicate``; fail saying ``what`` did not come."""
        for message in self.pending:
            if predicate(message):
                self.pending.remove(message)
                return message
        self.pending.clear()
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                message = self.recv(left)
            except TimeoutError:
                raise TimeoutError(
                    f"{self.session['account']['nickname']}: {what} did not come within {timeout:g} s; "
                    f"last received: {self.tail()}"
                ) from None
            if predicate(message):
                return message

    def wait_event(self, kind: str, timeout: float = WAIT, **match: Any) -> dict[str, Any]:
        def wanted(m: dict[str, Any]) -> bool:
            return (
                m["type"] == "event"
                and m["event"]["kind"] == kind
                and all(m["event"].get(k) == v for k, v in match.items())
            )

        return self.wait(wanted, timeout, what=f"a {kind!r} event {match or ''}".rstrip())

    def pump(self) -> bool:
        """Read every message already here (without waiting); True if there was any."""
        if self.ws is None:
            return False
        got = False
        with contextlib.suppress(TimeoutError):
            while True:
                self.pending.append(self.recv(0))
                got = True
        return got

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()


def call(server: Server, method: str, path: str, who: Player | None = None, **body: Any) -> httpx.Response:
    """An HTTP request to ``server``, signed in as ``who`` (if any), with ``body`` as its JSON (if any)."""
    headers = {"Authorization": f"Bearer {who.token}"} if who else {}
    return httpx.request(method, server.url + path, headers=headers, json=body or None, timeout=WAIT)


def expect(server: Server, method: str, path: str, who: Player | None, status: int, **body: Any) -> Any:
    """The JSON answer of :func:`call`, which must have the HTTP ``status``."""
    reply = call(server, method, path, who, **body)
    assert reply.status_code == status, (method, path, reply.status_code, reply.text)
    return reply.json()


def ok(server: Server, method: str, path: str, who: Player | None = None, **body: Any) -> Any:
    """The JSON answer of :func:`call`, which must succeed (200)."""
    return expect(server, method, path, who, 200, **body)


def registered(server: Server, nickname: str) -> Player:
    """A connected player whose guest account has been registered (a username and password)."""
    player = Player(server, nickname)
    username = f"u{player.account_id[:10]}"
    ok(server, "POST", "/api/register", player, username=username, password="correct horse")
    return player


def metric(server: Server, name: str) -> float:
    """The value of the Prometheus sample ``name`` on ``server``'s /metrics (0 when absent)."""
    text = httpx.get(server.url + "/metrics", timeout=WAIT).text
    found = re.search(rf"^{re.escape(name)} ([0-9.e+]+)$", text, flags=re.M)
    return float(found.group(1)) if found else 0.0


def alive(player: Player) -> None:
    """``player``'s connection still answers (a ping is acknowledged)."""
    assert player.request("ping")["type"] == "ack", "the connection must still work"


def play_turn(player: Player, table: str) -> dict[str, Any]:
    """On ``player``'s turn, play its weakest legal play, or pass when it may."""
    view = player.views[table]
    assert view is not None and view["to_move"] == view["seat"]
    if view["can_pass"] and (not view["legal_plays"] or len(view["legal_plays"]) > 3):
        return player.request("pass", table=table)
    return player.request("play", table=table, cards=view["legal_plays"][0])


def my_turn(player: Player, table: str) -> bool:
    view = player.views.get(table)
    return view is not None and not view["over"] and view["to_move"] == view["seat"]


def _stuck(players: list[Player], what: str, timeout: float) -> TimeoutError:
    seen = "; ".join(f"{p.session['account']['nickname']} last received {p.tail(4)}" for p in players)
    return TimeoutError(f"{what} did not happen within {timeout:g} s; {seen}")


def wait_until(
    players: list[Player], condition: Callable[[], bool], what: str, timeout: float = WAIT
) -> None:
    """Read the ``players``' messages (kept in ``pending``) until ``condition()`` holds; fail saying
    ``what`` did not happen. Nobody acts meanwhile (see :func:`drive` for that)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise _stuck(players, what, timeout)
        if not any(player.pump() for player in players):
            time.sleep(0.002)


def drive(
    players: list[Player],
    table: str,
    until: Callable[[], bool],
    timeout: float = 2 * WAIT,
    act: Callable[[Player, str], dict[str, Any]] = play_turn,
    what: str = "the end of the game",
) -> None:
    """Let scripted players take their turns (bots and 托管 play the rest) until ``until()``."""
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise _stuck(players, what, timeout)
        progressed = False
        for player in players:
            if player.ws is None:
                continue
            progressed |= player.pump()
            if my_turn(player, table):
                answer = act(player, table)
                assert answer["type"] == "ack", answer
                progressed = True
        if not progressed:
            time.sleep(0.002)


def new_table(player: Player, name: str = "test", **settings: Any) -> str:
    """The id of a table ``player`` creates (named ``name``) with ``settings``."""
    ack = player.ok("create_table", settings={"name": name, **settings})
    table: str = ack["data"]["table"]["id"]
    return table


def eventually(check: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Poll until ``check()`` holds (for state that no message announces: a cached list, a metric);
    fail saying ``what`` did not happen."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for: {what}"
        time.sleep(0.05)


def game_over(player: Player, table: str) -> Callable[[], bool]:
    def check() -> bool:
        view, state = player.views.get(table), player.states.get(table)
        return view is not None and bool(view["over"]) and state is not None and state["status"] != "playing"

    return check


def run_async(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` in a thread of its own. Playwright's sync API, which the browser tests use
    for the whole session, leaves its event loop marked as running in the main thread after each call,
    and there ``asyncio.run`` refuses to start: a test run after a browser test would fail by order.

    >>> async def answer() -> int:
    ...     return 42
    >>> run_async(answer())
    42
    """
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main).result()


def pg_url() -> str:
    return os.environ.get("NIUGUI_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@contextlib.contextmanager
def fresh_pg_schema(prefix: str, skipped: str) -> Iterator[str]:
    """A URL whose connections use a fresh schema ``prefix_…`` of the test PostgreSQL database, dropped
    after; the test is skipped, saying ``skipped`` and why, when PostgreSQL is not reachable."""
    import secrets

    import pytest
    import sqlalchemy as sa

    url = pg_url()
    schema = f"{prefix}_{secrets.token_hex(4)}"
    try:
        admin = sa.create_engine(url)
        with admin.begin() as c:
            c.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    except Exception as error:  # no server, no database, no permission
        pytest.skip(f"{skipped}: PostgreSQL not reachable at {url} (set NIUGUI_TEST_PG_URL): {error!r}")
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as c:
            c.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
