"""What the cluster's shared quick-play queue (niugui/server/cluster/queue.py) costs per round,
against a real Redis: N players join (each one ``WATCH``/``MULTI`` round trip), then one node
matches them all; and two nodes matching at once (the loser retries). Prints milliseconds.

    .venv/bin/python bench/cluster_queue_bench.py --players 400
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import time

from redis.asyncio import Redis

from niugui.server.cluster.queue import Entry, RedisQueue
from niugui.server.matchmaking import Ticket


async def main(players: int, url: str) -> None:
    prefix = f"niugui-bench-{secrets.token_hex(4)}"
    nodes = [RedisQueue(Redis.from_url(url), prefix, f"n{n}") for n in range(2)]
    try:
        started = time.perf_counter()
        for n in range(players):
            queue = nodes[n % 2]
            await queue.join(Entry(Ticket(f"p{n}", time.time()), queue.node_id, f"p{n}"))
        joined = time.perf_counter() - started
        started = time.perf_counter()
        groups = await nodes[0].match(time.time(), frozenset({"n0", "n1"}))
        matched = time.perf_counter() - started
        print(f"{players} joins: {joined * 1000 / players:.3f} ms each")
        print(f"one match of {players} waiting: {matched * 1000:.1f} ms, {len(groups)} groups")
        for n in range(players):
            queue = nodes[n % 2]
            await queue.join(Entry(Ticket(f"q{n}", time.time()), queue.node_id, f"q{n}"))
        started = time.perf_counter()
        both = await asyncio.gather(*(q.match(time.time()) for q in nodes))
        raced = time.perf_counter() - started
        seated = [w.account_id for found in both for g in found for w in g.people]
        assert len(seated) == len(set(seated)) == players
        conflicts = sum(q.conflicts for q in nodes)
        print(f"two nodes matching {players} at once: {raced * 1000:.1f} ms, conflicts {conflicts}")
    finally:
        keys = [k async for k in nodes[0].redis.scan_iter(match=f"{prefix}:*")]
        if keys:
            await nodes[0].redis.delete(*keys)
        for queue in nodes:
            await queue.redis.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument(
        "--redis", default=os.environ.get("NIUGUI_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    args = parser.parse_args()
    asyncio.run(main(args.players, args.redis))
