"""The cluster's lobby: one bounded index in Redis instead of every node publishing all its tables.

``lobby`` is a sorted set of the public tables not finished (tables with a free seat first, then the
newest), ``lobby:summary`` a hash of their summaries (the listing's, without join codes), each with the
node that owns the table. A node writes only what changed among its own tables since it last wrote
(:meth:`LobbyIndex.publish`); it reads one page, at most ``page`` entries, and only when
``lobby:version`` moved (:meth:`LobbyIndex.read`). So what a node reads per second does not grow with
the number of nodes, and what it writes grows only with its own tables' changes.

>>> LobbyIndex.score({"seats": [None, {"id": "a"}, None, None]}, 1000)
1000000000001000.0
>>> LobbyIndex.score({"seats": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]}, 1000)
1000.0
"""

from __future__ import annotations

import json
import time
from typing import Any

from redis.asyncio import Redis

from ..protocol import TableSummary

FREE = 1e15
"""Added to the score of a table with a free seat: listed before every full one."""


class LobbyIndex:
    def __init__(self, redis: Redis, prefix: str, node_id: str, page: int) -> None:
        self.redis, self.node_id, self.page = redis, node_id, page
        self.zset, self.hash = f"{prefix}:lobby", f"{prefix}:lobby:summary"
        self.version_key = f"{prefix}:lobby:v"
        self._mine: dict[str, str] = {}
        """What this node last wrote for each of its tables (table id → JSON)."""
        self._born: dict[str, int] = {}
        self._version: int | None = None
        self.listed: list[tuple[str, TableSummary]] = []
        """The page last read: (owner node, summary) of each table."""

    @staticmethod
    def score(summary: dict[str, Any], born_ms: int) -> float:
        """Free seats first, then the newest (see the module's doctest)."""
        free = any(s is None for s in summary["seats"])
        return (FREE if free else 0.0) + born_ms

    async def publish(self, mine: list[TableSummary]) -> int:
        """Write what changed among this node's public tables; the number of tables written or removed."""
        now: dict[str, str] = {}
        for s in mine:
            now[s.id] = json.dumps({"node": self.node_id, "t": s.model_dump(mode="json")}, ensure_ascii=False)
        changed: dict[Any, str] = {t: v for t, v in now.items() if self._mine.get(t) != v}
        gone = [t for t in self._mine if t not in now]
        if not changed and not gone:
            return 0
        async with self.redis.pipeline(transaction=False) as pipe:
            if changed:
                pipe.hset(self.hash, mapping=changed)
                scores = {}
                for t, v in changed.items():
                    born = self._born.setdefault(t, int(time.time() * 1000))
                    scores[t] = self.score(json.loads(v)["t"], born)
                pipe.zadd(self.zset, scores)
            if gone:
                pipe.zrem(self.zset, *gone)
                pipe.hdel(self.hash, *gone)
            pipe.incr(self.version_key)
            await pipe.execute()
        for t in gone:
            self._born.pop(t, None)
        self._mine = now
        return len(changed) + len(gone)

    async def remove(self, table_ids: list[str]) -> None:
        """Out of the index (tables of a dead node that finished, or a drained node's)."""
        if not table_ids:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self.zset, *table_ids)
            pipe.hdel(self.hash, *table_ids)
            pipe.incr(self.version_key)
            await pipe.execute()
        for t in table_ids:
            self._mine.pop(t, None)

    async def read(self) -> bool:
        """Read the first page again if the index changed since the last read; True if it was read."""
        version = await self.redis.get(self.version_key)
        current = int(version or 0)
        if current == self._version:
            return False
        ids = [
            _text(t)
            for t in await self.redis.zrevrange(self.zset, 0, self.page - 1)
            if isinstance(t, str | bytes)
        ]
        values = await self.redis.hmget(self.hash, ids) if ids else []
        listed = []
        for value in values:
            if value is not None:
                entry = json.loads(value)
                listed.append((str(entry["node"]), TableSummary.model_validate(entry["t"])))
        self.listed = listed
        self._version = current
        return True


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
