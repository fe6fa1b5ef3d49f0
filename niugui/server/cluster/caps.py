"""Fair-use caps counted across the nodes of a cluster (issue 32): on one node a limit is per node,
so N nodes would allow N times it. Here the counts that must hold for the whole cluster live in
Redis, each a counter with an expiry:

- **new tables** per account: ``cap:tables:<account>:<hour>``, taken (``INCR``) before a table is
  made, at most ``tables_per_account_hour`` in one clock hour;
- **messages** per account: each node adds what its connections sent in a round to
  ``cap:msgs:<account>:<window>`` (one ``INCRBY`` per busy account a second, not one per message);
  an account over ``account_burst + account_rate × WINDOW`` in a window is refused on every node
  until the window ends. Each node's own token buckets still hold at once; this bounds the sum;
- **connections** per account: counted by :mod:`.presence` (each node's open connections).

>>> allowance(rate=10.0, burst=20.0)
120.0
"""

from __future__ import annotations

import time

from redis.asyncio import Redis

WINDOW = 10.0
"""Seconds of one message window (the counters expire a window after it ends)."""


def allowance(rate: float, burst: float) -> float:
    """Messages an account may send in one window on the whole cluster."""
    return burst + rate * WINDOW


class Caps:
    def __init__(self, redis: Redis, prefix: str, rate: float, burst: float, tables_per_hour: float) -> None:
        self.redis, self.prefix = redis, prefix
        self.allowed = allowance(rate, burst)
        self.tables_per_hour = tables_per_hour
        self.sent: dict[str, int] = {}
        """Messages of this node's connections since the last round, by account."""
        self.blocked: dict[str, float] = {}
        """Accounts over the cluster's allowance → until when (time.time())."""

    # ---- messages -------------------------------------------------------------------------------------

    def over(self, account: str) -> bool:
        """Count one message of ``account``; whether the cluster has refused it for this window."""
        until = self.blocked.get(account)
        if until is not None:
            if time.time() < until:
                return True
            del self.blocked[account]
        self.sent[account] = self.sent.get(account, 0) + 1
        return False

    async def flush(self) -> None:
        """Add this round's counts to the cluster's, and block the accounts over the allowance."""
        if not self.sent:
            return
        sent, self.sent = self.sent, {}
        window = int(time.time() // WINDOW)
        ttl = int(WINDOW * 2)
        accounts = list(sent)
        async with self.redis.pipeline(transaction=False) as pipe:
            for account in accounts:
                key = f"{self.prefix}:cap:msgs:{account}:{window}"
                pipe.incrby(key, sent[account])
                pipe.expire(key, ttl)
            got = await pipe.execute()
        for account, total in zip(accounts, got[::2], strict=True):
            if int(total) > self.allowed:
                self.blocked[account] = (window + 1) * WINDOW

    # ---- new tables -----------------------------------------------------------------------------------

    async def take_table(self, account: str) -> bool:
        """One new table for ``account`` this hour on the whole cluster; False when it has made its
        ``tables_per_account_hour`` already (0: no cap)."""
        if not self.tables_per_hour:
            return True
        key = f"{self.prefix}:cap:tables:{account}:{int(time.time() // 3600)}"
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, 3600)
            count, _ = await pipe.execute()
        if int(count) > self.tables_per_hour:
            await self.redis.decr(key)  # not made: not counted
            return False
        return True

    async def give_table_back(self, account: str) -> None:
        """A table taken for was not made after all."""
        if self.tables_per_hour:
            await self.redis.decr(f"{self.prefix}:cap:tables:{account}:{int(time.time() // 3600)}")
