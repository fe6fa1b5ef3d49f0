"""One owner per table: a lease in Redis carrying a fencing token; and each node's tables in a set.

``lease:<table>`` holds ``<node>|<token>`` and expires unless its owner renews it; the token comes
from ``fence:<table>``, a counter that only grows, so a later owner always has a larger token. The
store refuses an event whose token is older than the table's (see :meth:`Store.claim`): a node that
was paused or cut off past its lease can no longer write, whatever it believes.

``tables:<node>`` is the set of the tables a node took a lease of (and has not released): when the
node dies, the survivors read that set, and only it, to take its tables over (:meth:`Leases.steal`),
without waiting for the leases to run out — the fencing token makes that safe as well.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.asyncio import Redis

_ACQUIRE = """
if redis.call('exists', KEYS[1]) == 1 then return 0 end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
redis.call('sadd', KEYS[3], ARGV[3])
return token
"""
_RENEW = """
local kept = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[i + 1] then
    redis.call('pexpire', key, ARGV[1])
    kept[i] = 1
  else
    kept[i] = 0
  end
end
return kept
"""
_RELEASE = """
if ARGV[3] == '1' then redis.call('srem', KEYS[2], ARGV[2]) end
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""
# KEYS: lease, fence, the dead node's set, mine, the dead node's heartbeat key.
# ARGV: me, lease ms, the dead node, the table, '1' when the dead node must still be silent.
_STEAL = """
if ARGV[5] == '1' and redis.call('exists', KEYS[5]) == 1 then return -1 end
local held = redis.call('get', KEYS[1])
if held and string.sub(held, 1, string.len(ARGV[3]) + 1) ~= ARGV[3] .. '|' then
  redis.call('srem', KEYS[3], ARGV[4])
  return 0
end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
redis.call('srem', KEYS[3], ARGV[4])
redis.call('sadd', KEYS[4], ARGV[4])
return token
"""


class Leases:
    def __init__(self, redis: Redis, prefix: str, node_id: str, seconds: float) -> None:
        self.redis = redis
        self.prefix = prefix
        self.node_id = node_id
        self.ms = max(1, int(seconds * 1000))
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._steal = redis.register_script(_STEAL)

    def key(self, table_id: str) -> str:
        return f"{self.prefix}:lease:{table_id}"

    def set_of(self, node: str) -> str:
        """The key of the set of ``node``'s tables."""
        return f"{self.prefix}:tables:{node}"

    def node_key(self, node: str) -> str:
        """The key of ``node``'s heartbeat (it expires when the node stops beating)."""
        return f"{self.prefix}:node:{node}"

    def _value(self, table_id: str, token: int) -> str:
        return f"{self.node_id}|{token}"

    async def acquire(self, table_id: str) -> int | None:
        """The lease's new fencing token, or None when another node holds it."""
        keys = [self.key(table_id), f"{self.prefix}:fence:{table_id}", self.set_of(self.node_id)]
        token = int(await self._acquire(keys=keys, args=[self.node_id, self.ms, table_id]))
        return token or None

    async def steal(self, table_id: str, dead: str) -> int | None:
        """The lease of a table of ``dead`` (a node whose heartbeat stopped), whether or not its lease
        ran out yet: its new fencing token, or None when another node took it first or ``dead`` beats
        again. ``dead`` may be this node's own name: its tables from before a restart.

        The token grows, and the new owner raises it in the store before it reads the table's events
        (:meth:`Store.claim`): whatever ``dead`` still tries to write is refused."""
        keys = [
            self.key(table_id),
            f"{self.prefix}:fence:{table_id}",
            self.set_of(dead),
            self.set_of(self.node_id),
            self.node_key(dead),
        ]
        silent = "0" if dead == self.node_id else "1"
        token = int(await self._steal(keys=keys, args=[self.node_id, self.ms, dead, table_id, silent]))
        return token if token > 0 else None

    async def renew(self, held: dict[str, int]) -> set[str]:
        """Extend the leases in ``held`` (table → token); the tables whose lease was lost."""
        if not held:
            return set()
        ids = list(held)
        kept = await self._renew(
            keys=[self.key(t) for t in ids], args=[self.ms, *(self._value(t, held[t]) for t in ids)]
        )
        return {t for t, ok in zip(ids, kept, strict=True) if not int(ok)}

    async def release(self, table_id: str, token: int, forget: bool = True) -> None:
        """Let the lease go; ``forget``: out of this node's set too (not at a drain: the set tells the
        others what to take over, should the drain's message be lost)."""
        await self._release(
            keys=[self.key(table_id), self.set_of(self.node_id)],
            args=[self._value(table_id, token), table_id, "1" if forget else "0"],
        )

    async def members(self, node: str) -> list[str]:
        """The tables in ``node``'s set."""
        return sorted(_text(m) for m in await self.redis.smembers(self.set_of(node)))

    async def forget(self, table_ids: Sequence[str]) -> None:
        """Out of this node's set (another node holds them now)."""
        if table_ids:
            await self.redis.srem(self.set_of(self.node_id), *table_ids)

    async def owners(self, table_ids: Sequence[str]) -> dict[str, str | None]:
        """The node holding each table's lease (None: nobody, the table is orphaned)."""
        if not table_ids:
            return {}
        values = await self.redis.mget([self.key(t) for t in table_ids])
        return {
            t: None if v is None else _text(v).partition("|")[0]
            for t, v in zip(table_ids, values, strict=True)
        }


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
