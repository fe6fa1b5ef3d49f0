"""Clubs' rooms across the nodes of a cluster (issue 32): each node keeps, in Redis, the summaries
of its clubs' open rooms (``rooms:<node>``: club → the rooms' summaries, never a join code: the
club page reads those from the database); a room is closed from any node by asking its owner over
the bus (:class:`.CloseRoom`, answered by :class:`.RoomClosed`)."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from redis.asyncio import Redis

from ..hub import Hub
from ..tables import Fault
from .bus import Bus, CloseRoom, RoomClosed
from .presence import REWRITE_EVERY, write_diff

ANSWER_SECONDS = 10.0
"""How long a node waits for a room's owner to answer."""


def rooms_here(hub: Hub) -> dict[str, str]:
    """Club → the JSON of its open rooms' summaries on this node (as anyone sees them)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for table in hub.tables.values():
        club = table.state.settings.club
        if club is not None and table.state.status != "finished":
            found.setdefault(club, []).append(table.fanout.summary(table.state, None).model_dump(mode="json"))
    return {club: json.dumps(rooms, ensure_ascii=False) for club, rooms in found.items()}


class Rooms:
    def __init__(
        self, hub: Hub, bus: Bus, redis: Redis, prefix: str, live: Callable[[], Iterable[str]]
    ) -> None:
        self.hub, self.bus, self.redis, self.prefix, self.live = hub, bus, redis, prefix, live
        self.node_id = bus.node_id
        self._sent: dict[str, str] = {}
        self._rounds = 0
        self._waiting: dict[str, asyncio.Future[RoomClosed]] = {}

    def key(self, node: str) -> str:
        return f"{self.prefix}:rooms:{node}"

    async def flush(self, ttl_ms: int) -> None:
        """Write this node's rooms that changed, and keep the key alive."""
        now = rooms_here(self.hub)
        key = self.key(self.node_id)
        self._rounds += 1
        if self._rounds % REWRITE_EVERY == 0:  # all of it again now and then (the key lost in a stall)
            self._sent = {}
        async with self.redis.pipeline(transaction=False) as pipe:
            write_diff(pipe, key, now, self._sent)
            pipe.pexpire(key, ttl_ms)
            await pipe.execute()
        self._sent = now

    async def elsewhere(self, club: str) -> list[dict[str, Any]]:
        """The club's open rooms on the other live nodes (summaries, no join code)."""
        nodes = sorted(n for n in set(self.live()) if n != self.node_id)
        if not nodes:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for node in nodes:
                pipe.hget(self.key(node), club)
            got = await pipe.execute()
        return [room for value in got if value is not None for room in json.loads(value)]

    async def with_codes(self, club: str, known: set[str]) -> list[dict[str, Any]]:
        """The club's rooms on the other nodes but ``known``, each with its join code (read from the
        database: Redis holds none) — for the club page, shown to members only."""
        rooms = [r for r in await self.elsewhere(club) if r["id"] not in known]
        store = self.hub.store
        rows = await asyncio.to_thread(lambda: [store.table_row(r["id"]) for r in rooms])
        return [
            {**r, "code": None if row is None else row["code"]} for r, row in zip(rooms, rows, strict=True)
        ]

    async def close_anywhere(self, table: str, club: str) -> RoomClosed | None:
        """Close the club's room ``table`` at its owner (None: no node holds it)."""
        value = await self.redis.get(f"{self.prefix}:lease:{table}")
        if value is None:
            return None
        owner = (value.decode() if isinstance(value, bytes) else str(value)).partition("|")[0]
        return await self.close(owner, table, club)

    async def close(self, node: str, table: str, club: str) -> RoomClosed:
        """Ask ``node`` (the room's owner) to close it."""
        request = CloseRoom(id=secrets.token_hex(8), origin=self.node_id, table=table, club=club)
        future: asyncio.Future[RoomClosed] = asyncio.get_running_loop().create_future()
        self._waiting[request.id] = future
        self.bus.send(node, request)
        try:
            return await asyncio.wait_for(future, ANSWER_SECONDS)
        finally:
            self._waiting.pop(request.id, None)

    def notice(self, message: CloseRoom | RoomClosed) -> None:
        if isinstance(message, RoomClosed):
            future = self._waiting.get(message.id)
            if future is not None and not future.done():
                future.set_result(message)
            return
        self.bus.send(message.origin, self._close_here(message))

    def _close_here(self, message: CloseRoom) -> RoomClosed:
        table = self.hub.tables.get(message.table)
        state = None if table is None else table.state
        if state is None or state.settings.club != message.club or state.status == "finished":
            return RoomClosed(id=message.id, outcome="no_table")
        try:
            self.hub.close_abandoned(message.table)
        except Fault as fault:
            return RoomClosed(id=message.id, outcome="room_in_play", message=str(fault))
        return RoomClosed(id=message.id, outcome="closed")
