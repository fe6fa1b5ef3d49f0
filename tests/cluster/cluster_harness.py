"""Real cluster nodes (``niugui serve --redis``) on loopback, sharing one PostgreSQL schema and one Redis
key prefix; helpers to find a table's owner and to read a node's metrics. Every wait is for the thing
itself, with a generous deadline (the machine is loaded)."""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import redis
from server_harness import WAIT, Player, Server, my_turn, play_turn
from websockets.sync.client import connect

LEASE = "3"
"""The nodes' lease in seconds: short, so that failover tests are quick; a third of it between renewals
leaves room for a busy machine."""


class Cluster:
    def __init__(self, root: Path, db: str, redis_url: str, prefix: str) -> None:
        self.root, self.db, self.redis_url, self.prefix = root, db, redis_url, prefix
        self.redis = redis.Redis.from_url(redis_url, decode_responses=True)
        self.nodes: list[Server] = []

    def start(self, count: int, *extra: str) -> list[Server]:
        """``count`` more nodes, one after the other (the first migrates the schema); ``extra``: more
        options of ``niugui serve`` for each."""
        for _ in range(count):
            index = len(self.nodes)
            node = Server(
                self.root / f"node{index}",
                "--rate-limit",
                "50",
                "--redis",
                self.redis_url,
                "--redis-prefix",
                self.prefix,
                "--lease",
                LEASE,
                "--node-id",
                f"n{index}",
                *extra,
                grace=60.0,
                db=self.db,
            )
            self.nodes.append(node.start())
        self.wait(
            lambda: all(self.health(n).get("nodes") == len(self.alive()) for n in self.alive()),
            "every node to see every other",
        )
        return self.nodes

    def alive(self) -> list[Server]:
        return [n for n in self.nodes if n.process is not None and n.process.poll() is None]

    def stop(self) -> None:
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.process.send_signal(signal.SIGCONT)  # a paused node cannot stop
            node.stop()
        self.redis.close()

    def owner(self, table: str) -> str | None:
        value = self.redis.get(f"{self.prefix}:lease:{table}")
        return None if value is None else str(value).partition("|")[0]

    def node(self, node_id: str) -> Server:
        return self.nodes[int(node_id[1:])]

    @staticmethod
    def health(node: Server) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = httpx.get(node.url + "/healthz", timeout=10).json()
            return answer
        except httpx.HTTPError:
            return {}

    @staticmethod
    def metric(node: Server, name: str) -> float:
        text = httpx.get(node.url + "/metrics", timeout=10).text
        found = re.search(rf"^{re.escape(name)}(?:\{{[^}}]*\}})? (\S+)$", text, re.M)
        return 0.0 if found is None else float(found.group(1))

    @staticmethod
    def wait(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} did not happen within {timeout:g} s")
            time.sleep(0.05)


RETRY = ("moving",)
"""What a client retries: the table's node died or the table is moving (the page retries too)."""


def retrying(player: Player, kind: str, **fields: Any) -> dict[str, Any]:
    """A request sent again while the answer says the table is moving (a failover), until acked."""
    deadline = time.monotonic() + WAIT
    while True:
        answer = player.request(kind, **fields)
        if answer["type"] == "ack" or answer["code"] not in RETRY or time.monotonic() > deadline:
            return answer
        player.pump()
        time.sleep(0.1)  # a client's back-off between retries, not a wait for something


def act_through_failover(player: Player, table: str) -> dict[str, Any]:
    """:func:`play_turn`, except that a refusal during a failover is no failure: either the table was
    moving (try again later), or, meanwhile, 托管 moved for the seat and the turn has passed."""
    seq = player.last_seq.get(table, 0)
    answer = play_turn(player, table)
    if answer["type"] == "ack":
        return answer
    player.pump()
    if answer["code"] in RETRY or player.last_seq.get(table, 0) > seq or not my_turn(player, table):
        time.sleep(0.1)  # back-off
        return {"type": "ack", "retry": answer}
    return answer


def events_by_seq(players: list[Player], table: str) -> dict[int, str]:
    """Every event of ``table`` any player received, by seq; fails if two differ for one seq."""
    import json

    seen: dict[int, str] = {}
    for player in players:
        for m in player.received:
            if m["type"] == "event" and m["table"] == table:
                text = json.dumps(m["event"], sort_keys=True)
                assert seen.setdefault(m["seq"], text) == text, f"two different events with seq {m['seq']}"
    return seen


def gapless(player: Player, table: str) -> None:
    """The player got every seq of the table from its first to its last (replays fill reconnect gaps)."""
    seqs = sorted({m["seq"] for m in player.received if m["type"] == "event" and m["table"] == table})
    snaps = [m["seq"] for m in player.received if m["type"] == "snapshot" and m["table"] == table]
    start = min([*seqs, *snaps]) if seqs or snaps else 0
    covered = set(seqs) | set(range(0, max(snaps, default=0) + 1))
    missing = [s for s in range(start, max(seqs, default=start) + 1) if s not in covered]
    assert not missing, f"{player.session['account']['nickname']} missed events {missing[:10]}"


class Behind(Player):
    """A player whose requests come, through a proxy the nodes trust (``--trust-proxy 127.0.0.1``),
    from ``address``: quick play compares it (issue 33, finding 8)."""

    def __init__(self, server: Server, nickname: str, address: str) -> None:
        self.address = address
        reply = httpx.post(
            server.url + "/api/guest", json={"nickname": nickname}, headers=self.headers(), timeout=10
        )
        assert reply.status_code == 200, reply.text
        super().__init__(server, nickname, reply.json())

    def headers(self) -> dict[str, str]:
        return {"X-Forwarded-For": self.address}

    def connect(self) -> None:
        url, headers = f"ws://127.0.0.1:{self.server.port}/ws", self.headers()
        self.ws = connect(url, max_size=2**22, open_timeout=WAIT, additional_headers=headers).__enter__()
        self.ws.send(json.dumps({"type": "auth", "id": "auth", "token": self.token}))
        self.welcome = self.recv()
        assert self.welcome["type"] == "welcome", self.welcome
