"""Who is connected where, and who sits where, for every node of a cluster (issue 32).

Each node keeps three hashes of its own in Redis, each expiring :data:`TTL_MS` after the node's
last round (a node that died is forgotten by itself; readers ask only the live nodes anyway):

- ``online:<node>``: account → connections open on that node (the per-account connection cap
  counts them across nodes; invitations find the node of a friend);
- ``bots:<node>``: a bot account's lower-case username → its account id (bot invitations);
- ``seats:<node>``: account → the seats it holds at that node's tables: table, seat, name, status,
  and what the visibility rule needs (private or not, club, creator, players) — never a card, never
  a join code.

A node writes only what changed since its last round; a reader asks every live node in one pipeline.

>>> where_of([{"table": "t1", "seat": 2, "name": "x", "status": "playing", "private": True,
...            "club": None, "creator": "ann", "players": ["ann", "bob"]}], "carl")
{'private': True}
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from typing import Any

from redis.asyncio import Redis

from ..directory import Directory
from ..tables import Client
from ..visibility import TableFacts, may_see

TTL_MS = 10_000
"""A node's presence lives this long after its last round (rounds are a second apart)."""

REWRITE_EVERY = 30
"""Rounds between two complete writes of this node's part (the others write what changed)."""

Seat = dict[str, Any]


def seats_here(directory: Directory) -> dict[str, list[Seat]]:
    """Every account seated at a table of this node → its seats (what :func:`where_of` needs)."""
    found: dict[str, list[Seat]] = {}
    for table in directory.tables.values():
        state = table.state
        if state.status == "finished":
            continue
        players = sorted(s.player.id for s in state.seats if s.player is not None and s.player.id)
        for n, slot in enumerate(state.seats):
            if slot.player is None or not slot.player.id:
                continue
            found.setdefault(slot.player.id, []).append(
                {
                    "table": table.id,
                    "seat": n,
                    "name": state.settings.name,
                    "status": state.status,
                    "private": state.settings.private,
                    "club": state.settings.club,
                    "creator": state.creator,
                    "players": players,
                }
            )
    return found


def where_of(seats: list[Seat], viewer: str) -> dict[str, Any] | None:
    """Where a friend sits, as ``viewer`` may see it (as on one node: playing first; a table the
    viewer may not see is only ``{"private": true}``)."""
    if not seats:
        return None
    seat = sorted(seats, key=lambda s: s["status"] != "playing")[0]
    code = "?" if seat["private"] else None  # private or not is all the rule reads of it here
    facts = TableFacts(seat["table"], seat["creator"], code, frozenset(seat["players"]), seat["club"])
    if not may_see(facts, viewer):
        return {"private": True}
    return {k: seat[k] for k in ("table", "seat", "name", "status", "private")}


class Presence:
    """This node's part (kept in memory, written by :meth:`flush`) and the reads of every node's."""

    def __init__(self, redis: Redis, prefix: str, node_id: str, live: Callable[[], Iterable[str]]) -> None:
        self.redis, self.prefix, self.node_id, self.live = redis, prefix, node_id, live
        self.counts: dict[str, int] = {}
        self.bots: dict[str, str] = {}
        self._clients: dict[Client, str | None] = {}
        self._sent_counts: dict[str, str] = {}
        self._sent_bots: dict[str, str] = {}
        self._sent_seats: dict[str, str] = {}
        self._rounds = 0
        self._lock = asyncio.Lock()

    def key(self, kind: str, node: str) -> str:
        return f"{self.prefix}:{kind}:{node}"

    def connect(self, client: Client, bot_username: str | None) -> None:
        self._clients[client] = bot_username
        self.counts[client.account_id] = self.counts.get(client.account_id, 0) + 1
        if bot_username is not None:
            self.bots[bot_username.lower()] = client.account_id

    def disconnect(self, client: Client) -> bool:
        """Forget a connection of this node; False when it was none (another node's proxy)."""
        if client not in self._clients:
            return False
        bot = self._clients.pop(client)
        left = self.counts.get(client.account_id, 0) - 1
        if left > 0:
            self.counts[client.account_id] = left
        else:
            self.counts.pop(client.account_id, None)
            if bot is not None:
                self.bots.pop(bot.lower(), None)
        return True

    async def flush(self, directory: Directory | None) -> None:
        """Write what changed since the last round (the seats too, when ``directory`` is given), and
        keep this node's keys alive. One round at a time; what changes meanwhile waits for the next."""
        async with self._lock:
            await self._flush(directory)

    async def _flush(self, directory: Directory | None) -> None:
        online, bots, seats = (self.key(k, self.node_id) for k in ("online", "bots", "seats"))
        self._rounds += 1
        if self._rounds % REWRITE_EVERY == 0:  # all of it again now and then (keys lost in a stall)
            self._sent_counts, self._sent_bots, self._sent_seats = {}, {}, {}
        counts, bot_names = {a: str(n) for a, n in self.counts.items()}, dict(self.bots)  # as of now
        now = None
        async with self.redis.pipeline(transaction=False) as pipe:
            write_diff(pipe, online, counts, self._sent_counts)
            write_diff(pipe, bots, bot_names, self._sent_bots)
            if directory is not None:
                now = {a: json.dumps(s, ensure_ascii=False) for a, s in seats_here(directory).items()}
                write_diff(pipe, seats, now, self._sent_seats)
            for key in (online, bots, seats):
                pipe.pexpire(key, TTL_MS)
            await pipe.execute()
        self._sent_counts, self._sent_bots = counts, bot_names
        if now is not None:
            self._sent_seats = now

    async def _each_node(self, kind: str, fields: list[str]) -> dict[str, list[Any]]:
        nodes = sorted(set(self.live()))
        if not fields or not nodes:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for node in nodes:
                pipe.hmget(self.key(kind, node), fields)
            got = await pipe.execute()
        return dict(zip(nodes, got, strict=True))

    async def connections(self, account: str) -> int:
        """The account's connections open on every live node."""
        found = await self._each_node("online", [account])
        return sum(int(values[0] or 0) for values in found.values())

    async def nodes_of(self, account: str) -> list[str]:
        """The live nodes where the account is connected."""
        found = await self._each_node("online", [account])
        return [node for node, values in found.items() if int(values[0] or 0) > 0]

    async def online(self, accounts: list[str]) -> set[str]:
        """Which of ``accounts`` are connected to some live node."""
        found = await self._each_node("online", accounts)
        return {a for values in found.values() for a, v in zip(accounts, values, strict=True) if v}

    async def bot(self, username: str) -> tuple[str, str] | None:
        """(node, account id) of the bot account ``username`` connected somewhere, if it is."""
        found = await self._each_node("bots", [username.lower()])
        for node, values in found.items():
            if values[0] is not None:
                return node, _text(values[0])
        return None

    async def seats(self, accounts: list[str], skip: str | None = None) -> dict[str, list[Seat]]:
        """Each account's seats at the tables of every live node (but ``skip``)."""
        found = await self._each_node("seats", accounts)
        result: dict[str, list[Seat]] = {a: [] for a in accounts}
        for node, values in found.items():
            if node == skip:
                continue
            for account, value in zip(accounts, values, strict=True):
                if value is not None:
                    result[account].extend(json.loads(value))
        return result


def write_diff(pipe: Any, key: str, now: dict[str, str], sent: dict[str, str]) -> None:
    """Queue on ``pipe`` what makes hash ``key`` hold ``now`` when it held ``sent``."""
    gone = [a for a in sent if a not in now]
    if gone:
        pipe.hdel(key, *gone)
    changed = {a: v for a, v in now.items() if sent.get(a) != v}
    if changed:
        pipe.hset(key, mapping=changed)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
