"""Issue 33, findings 1, 2, 4 and 12 (connection rate): floods from one address that slowed everyone.
Each test is named after its finding; the attack figures are in docs/security.md."""

from __future__ import annotations

import contextlib
import math
import os
import selectors
import socket
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from server_harness import Player, Server
from websockets.exceptions import ConnectionClosed

from niugui.server import matchmaking
from niugui.server.config import Community, Limits
from niugui.server.fairuse import FairUse
from niugui.server.handlers import ROUTES
from niugui.server.limits import Exempt, TokenBucket
from niugui.server.matchmaking import Preferences, Queue, Ticket
from niugui.server.metrics import Metrics
from niugui.server.quickplay import Matchmaker
from niugui.server.tables import Fault
from niugui.server.ws import endpoint
from niugui.server.ws.connection import FLOOD_CLOSE, FLOOD_SECONDS


def _never_fitting(turns: int, games: int) -> Queue:
    """The red team's queue: each guest names a turn timer or a game count nobody else names, so any
    two of them fit (one says the timer, the other the games) and no three do."""
    queue = Queue()
    for i in range(turns):
        queue.join(Ticket(f"t{i}", float(i), Preferences(turn_seconds=5 + i)))
    for i in range(games):
        queue.join(Ticket(f"g{i}", float(turns + i), Preferences(games=1 + i)))
    assert queue.match(now=1e6) == []
    return queue


def _work_of_one_join(queue: Queue, monkeypatch: pytest.MonkeyPatch, who: str, prefs: Preferences) -> int:
    """Preferences merged and pairs compared while matching one (re-)join."""
    work = {"n": 0}
    merge, met = Preferences.merge, matchmaking._met

    def counted_merge(self: Preferences, other: Preferences) -> Preferences | None:
        work["n"] += 1
        return merge(self, other)

    def counted_met(a: Ticket, b: Ticket) -> bool:
        work["n"] += 1
        return met(a, b)

    with monkeypatch.context() as patch:
        patch.setattr(Preferences, "merge", counted_merge)
        patch.setattr(matchmaking, "_met", counted_met)
        queue.join(Ticket(who, 1e5, prefs))
        assert queue.match(now=1e6) == []
    return work["n"]


@pytest.mark.parametrize("turns", [43, 116])
def test_finding_1_one_quick_play_costs_the_matcher_the_same_whatever_the_queue_holds(
    turns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """59 guests (43 + 16) whose preferences never fit made each ``quick_play`` search 47 ms (a
    depth-first search over every waiting player, for each of them); 132 made it ~150 ms. The index
    by preference looks at a few buckets: the work of a re-join does not grow with the queue."""
    queue = _never_fitting(turns, 16)
    rejoin = _work_of_one_join(queue, monkeypatch, "t3", Preferences(turn_seconds=8))
    anyone = _work_of_one_join(queue, monkeypatch, "newcomer", Preferences())
    assert rejoin <= 20 and anyone <= 20, (rejoin, anyone)  # before: 10⁴–10⁵ at these sizes


def test_finding_1_the_index_still_seats_every_four_that_fits() -> None:
    queue = _never_fitting(43, 16)
    queue.join(Ticket("x", 100.0, Preferences(turn_seconds=5)))  # fits t0, and each g alone
    groups = queue.match(now=1e6)
    assert groups == []  # g0 and g1 name different game counts: still no four
    queue.join(Ticket("y", 101.0, Preferences(turn_seconds=5, games=1)))
    (group, prefs), *more = queue.match(now=1e6)
    assert not more and sorted(t.account_id for t in group) == ["g0", "t0", "x", "y"]
    assert prefs == Preferences(turn_seconds=5, games=1)


def _connection(account: str, address: str) -> Any:
    return SimpleNamespace(account_id=account, address=address)


def test_finding_1_quick_play_is_charged_to_the_account_and_the_address() -> None:
    """40 re-joins a second from one address ran the matcher 40 times a second: quick-play requests
    now spend the account's (5 at once, 1/s) and the address's (20 at once, 4/s) budget."""
    assert ROUTES.get("quick_play") is not None and ROUTES.get("quick_play").limit == "quick"  # type: ignore[union-attr]
    assert ROUTES.get("queue_bots").limit == "quick"  # type: ignore[union-attr]
    fair = FairUse(Limits(), Exempt(), Metrics())
    one = _connection("a", "10.0.0.1")
    for _ in range(5):
        fair.charge_quick(one)
    with pytest.raises(Fault) as refused:
        fair.charge_quick(one)
    assert refused.value.code == "rate_limited"
    fair.refund_quick(one)  # a request refused for another reason costs nothing
    fair.charge_quick(one)
    for i in range(15):  # the address's other accounts: 20 in all
        fair.charge_quick(_connection(f"b{i}", "10.0.0.1"))
    with pytest.raises(Fault):
        fair.charge_quick(_connection("c", "10.0.0.1"))
    fair.charge_quick(_connection("c", "10.0.0.2"))  # another address has its own


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("floods") / "data").start()
    yield srv
    srv.stop()


def _masked_ping(payload: bytes) -> bytes:
    key = os.urandom(4)
    return bytes((0x89, 0x80 | len(payload))) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def test_finding_2_ping_frames_are_counted_and_a_ping_flood_is_closed(server: Server) -> None:
    """One connection's ping (control) frames took a bystander from 0.7 ms to 1,732 ms: they passed
    no limit. Now each one is counted like a message (20/s, burst 40): those over the rate get no
    pong, and 200 refused within 10 s close the connection (1008). A bystander is not touched."""
    bystander, flooder = Player(server, "calm"), Player(server, "pinger")
    assert flooder.ws is not None
    flooder.ws.socket.sendall(b"".join(_masked_ping(b"%d" % i) for i in range(1000)))
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            flooder.ws.recv(timeout=30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert bystander.request("ping")["type"] == "ack"


def _fake(rate_limit: float = 20.0) -> tuple[Any, Any, list[tuple[str | None, str]]]:
    """An endpoint's services and one connection, without a server (the account's and address's
    buckets are made generous: the connection's own bucket is the one that refuses)."""
    limits = Limits(account_rate=1e6, account_burst=1e6)
    errors: list[tuple[str | None, str]] = []
    svc = SimpleNamespace(
        fair=FairUse(limits, Exempt(), Metrics()),
        metrics=Metrics(),
        config=SimpleNamespace(rate_limit=rate_limit),
        hub=SimpleNamespace(routes={}),
    )
    connection = SimpleNamespace(
        account_id="a",
        address="",
        bucket=TokenBucket(rate_limit, 2 * rate_limit),
        strikes=TokenBucket(FLOOD_CLOSE / FLOOD_SECONDS, FLOOD_CLOSE),
        limited=0,
        closed=False,
    )
    connection.error = lambda request_id, code, message, rule=None: errors.append((request_id, code))

    def close(code: int = 1008) -> None:
        connection.closed = True

    connection.close = connection.cut = close
    return svc, connection, errors


def test_finding_2_refused_frames_are_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """16 KB text frames that the limiter dropped were still parsed in full (689 ms for a bystander
    with one flooding connection). Now a frame is counted before anything else, and one over the
    rate is answered from its first characters: of 1,000 such frames, the 40 of the burst are parsed
    (before: 414, each refused one parsed for its id)."""
    svc, connection, errors = _fake()
    parsed = {"n": 0}
    decode = endpoint.decode

    def counted(text: str) -> Any:
        parsed["n"] += 1
        return decode(text)

    monkeypatch.setattr(endpoint, "decode", counted)
    monkeypatch.setattr("niugui.server.ws.frames.decode", counted)
    frame = '{"type": "nope", "id": "r1", "pad": "' + "x" * 16_000 + '"}'
    for _ in range(1000):
        endpoint.on_message(svc, connection, frame)
    assert parsed["n"] <= 45, parsed  # before: 1,000
    assert ("r1", "rate_limited") in errors  # the refused request is still answered by its id


def test_finding_2_refusals_close_the_connection_though_some_frames_pass_between() -> None:
    """The documented "200 refused in a row closes the connection" never fired: a flood at any
    speed has a frame let through now and then as the bucket refills, which started the count
    again. Now refusals are forgiven at 20/s, not reset by a frame that passes."""
    svc, connection, _ = _fake()
    connection.bucket.tokens = 0.0
    sent = 0
    while not connection.closed and sent < 5000:
        if sent % 50 == 0:
            connection.bucket.give_back()  # the refill lets one through every 50
        endpoint.on_message(svc, connection, '{"type": "nope", "id": "r"}')
        sent += 1
    assert connection.closed and sent <= FLOOD_CLOSE + 10, sent  # before: never closed (5,000 sent)


def _open_from(server: Server, source: str) -> socket.socket:
    conn = socket.socket()
    conn.bind((source, 0))
    conn.settimeout(30)
    conn.connect(("127.0.0.1", server.port))
    return conn


def _closed_after(conns: list[socket.socket], started: float) -> list[float]:
    """Seconds from ``started`` until the server closed each of ``conns`` (waits for all, 30 s at
    most: one still open then is ``inf``)."""
    closed = [math.inf] * len(conns)
    with selectors.DefaultSelector() as waiting:
        for index, conn in enumerate(conns):
            waiting.register(conn, selectors.EVENT_READ, index)
        deadline = time.monotonic() + 30
        while waiting.get_map() and time.monotonic() < deadline:
            for key, _ in waiting.select(timeout=deadline - time.monotonic()):
                conn = key.fileobj
                assert isinstance(conn, socket.socket)
                try:
                    data = conn.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    closed[key.data] = time.monotonic() - started
                    waiting.unregister(conn)
                    conn.close()
    return closed


def _healthz_from(server: Server, source: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, timeout=30) as client:
        return client.get(f"{server.url}/healthz").status_code


def test_finding_4_half_sent_requests_from_one_address_do_not_stop_a_newcomer(server: Server) -> None:
    """19,990 half-sent requests from one address took all 20,000 descriptors (no cap on HTTP
    connections, no deadline for headers). Now an address holds at most 64 connections in HTTP, and a
    request must arrive whole within 10 s: of 100 half-sent requests, 36 or more are cut at once,
    every one is closed, and a newcomer's /healthz is answered meanwhile."""
    started = time.monotonic()
    half = []
    for _ in range(100):
        conn = _open_from(server, "127.0.0.11")
        with contextlib.suppress(OSError):  # one cut at the door may already be reset
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never the blank line
        half.append(conn)
    assert _healthz_from(server, "127.0.0.13") == 200
    closed = _closed_after(half, started)
    assert max(closed) < math.inf, closed  # before: none was closed
    assert sum(t < Limits().request_seconds for t in closed) >= 100 - Limits().http_connections_per_address
    assert _healthz_from(server, "127.0.0.13") == 200


def test_finding_12_opening_connections_is_rate_limited_per_address(server: Server) -> None:
    """133 new connections a second from one address raised the server's CPU to 76%: nothing
    counted openings. Now an address opens 20 a second (burst 120); one over is cut before a byte
    of it is read, and another address is not touched."""
    started = time.monotonic()
    served = cut = 0
    for _ in range(300):
        conn = _open_from(server, "127.0.0.12")
        try:
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = conn.recv(12)
        except (ConnectionResetError, BrokenPipeError):
            answer = b""
        finally:
            conn.close()
        served += answer.startswith(b"HTTP/1.1 200")
        cut += not answer
    took = time.monotonic() - started
    most = Limits().connection_burst + Limits().connection_rate * took + 1
    assert cut > 0 and served <= most, (served, cut, took)  # before: 300 served
    assert _healthz_from(server, "127.0.0.13") == 200


def test_finding_1_one_quick_play_sends_one_frame_and_the_others_hear_once() -> None:
    """Each ``quick_play`` told every waiting player the new count: a frame per waiting player per
    request. Now the asker is told at once, and the others once for all the changes of half a
    second."""
    frames: dict[str, int] = {}
    timers: list[Callable[[], None]] = []

    class Seat:
        def __init__(self, account: str) -> None:
            self.account_id, self.nickname, self.address = account, account, ""  # the Client protocol

        def send(self, _frame: str) -> None:
            frames[self.account_id] = frames.get(self.account_id, 0) + 1

    seats = {f"p{n}": Seat(f"p{n}") for n in range(60)}
    matchmaker = Matchmaker(
        Community(),
        lambda account: [seats[account]],
        lambda *_: None,
        later=lambda _delay, callback: timers.append(callback) or SimpleNamespace(cancel=lambda: None),
    )
    for n in range(59):
        matchmaker.join(seats[f"p{n}"], Preferences(turn_seconds=5 + n), None)  # type: ignore[arg-type]
    for callback in timers:
        callback()
    timers.clear()
    frames.clear()
    for _ in range(10):
        matchmaker.join(seats["p59"], Preferences(turn_seconds=100), None)  # type: ignore[arg-type]
        matchmaker.leave("p59")
    assert sum(frames.values()) == 20 and set(frames) == {"p59"}  # before: 1,200 (60 a request)
    for callback in timers:
        callback()
    assert frames["p0"] == 1 and len(frames) == 60
