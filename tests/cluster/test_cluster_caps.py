"""Messages per account counted across nodes (niugui/server/cluster/caps.py) against a real Redis: two
nodes each under the allowance alone, over it together, and both refuse the account for the rest of
the window; another account is untouched; a window later it may send again."""

from __future__ import annotations

import asyncio
import time

from redis.asyncio import Redis

from niugui.server.cluster import caps
from niugui.server.cluster.caps import Caps

from .conftest import redis_url


def test_two_nodes_sum_an_accounts_messages(redis_prefix: str) -> None:
    async def run() -> None:
        nodes = [Caps(Redis.from_url(redis_url()), redis_prefix, 1.0, 5.0, 0) for _ in range(2)]
        allowed = caps.allowance(1.0, 5.0)  # 5 + 1 × 10 = 15 in a window
        assert allowed == 15.0
        left = caps.WINDOW - time.time() % caps.WINDOW
        if left < 2:  # the window ends in a moment: start with the next one (all counts in one)
            await asyncio.sleep(left + 0.05)
        for node in nodes:  # 10 each: under 15 alone, 20 together
            assert not any(node.over("spam") for _ in range(10))
            node.over("calm")
        await asyncio.gather(*(n.flush() for n in nodes))
        # the second node to add its count saw 20 > 15; the first saw 10: it learns on its next round
        assert sum(n.over("spam") for n in nodes) >= 1
        nodes[0].over("spam")
        nodes[1].over("spam")
        await asyncio.gather(*(n.flush() for n in nodes))
        assert all(n.over("spam") for n in nodes), "both nodes refuse the account now"
        assert not any(n.over("calm") for n in nodes), "another account is not refused"
        until = max(n.blocked["spam"] for n in nodes)
        assert until <= (int(time.time() // caps.WINDOW) + 1) * caps.WINDOW  # only this window
        for node in nodes:
            node.blocked["spam"] = time.time() - 1  # as if the window had ended
            assert not node.over("spam")
            await node.redis.aclose()

    asyncio.run(run())
