"""One owner per table: a lease in Redis carrying a fencing token.

``lease:<table>`` holds ``<node>|<token>`` and expires unless its owner renews it; the token comes
from ``fence:<table>``, a counter that only grows, so a later owner always has a larger token. The
store refuses an event whose token is older than the table's (see :meth:`Store.claim`): a node that
was paused or cut off past its lease can no longer write, whatever it believes.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.asyncio import Redis

_ACQUIRE = """
if redis.call('exists', KEYS[1]) == 1 then return 0 end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
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
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
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

    def key(self, table_id: str) -> str:
        return f"{self.prefix}:lease:{table_id}"

    def _value(self, table_id: str, token: int) -> str:
        return f"{self.node_id}|{token}"

    async def acquire(self, table_id: str) -> int | None:
        """The lease's new fencing token, or None when another node holds it."""
        token = int(
            await self._acquire(
                keys=[self.key(table_id), f"{self.prefix}:fence:{table_id}"], args=[self.node_id, self.ms]
            )
        )
        return token or None

    async def renew(self, held: dict[str, int]) -> set[str]:
        """Extend the leases in ``held`` (table → token); the tables whose lease was lost."""
        if not held:
            return set()
        ids = list(held)
        kept = await self._renew(
            keys=[self.key(t) for t in ids], args=[self.ms, *(self._value(t, held[t]) for t in ids)]
        )
        return {t for t, ok in zip(ids, kept, strict=True) if not int(ok)}

    async def release(self, table_id: str, token: int) -> None:
        await self._release(keys=[self.key(table_id)], args=[self._value(table_id, token)])

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
