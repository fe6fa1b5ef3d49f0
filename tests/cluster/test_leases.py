"""Leases and each node's set of tables, on a real Redis: a silent node's tables are taken over from
its set with a larger fencing token, by one survivor only, and never while the node still beats."""

from __future__ import annotations

import redis.asyncio as aioredis
from server_harness import run_async

from niugui.server.cluster.lease import Leases

from .conftest import redis_url


async def _steal_scenario(prefix: str) -> None:
    client = aioredis.Redis.from_url(redis_url())
    try:
        n0, n1, n2 = (Leases(client, prefix, n, 60.0) for n in ("n0", "n1", "n2"))
        first = await n0.acquire("t1")
        assert first is not None and await n0.members("n0") == ["t1"]
        await client.set(n0.node_key("n0"), "{}", px=60_000)  # n0 beats
        assert await n1.steal("t1", "n0") is None  # alive: nobody takes its tables
        assert (await n1.owners(["t1"]))["t1"] == "n0"
        await client.delete(n0.node_key("n0"))  # silent (its lease has not run out yet)
        second = await n1.steal("t1", "n0")
        assert second is not None and second > first  # the store refuses n0's token from now on
        assert await n2.steal("t1", "n0") is None  # one survivor only
        assert await n0.members("n0") == [] and await n1.members("n1") == ["t1"]
        assert await n0.renew({"t1": first}) == {"t1"}  # n0, woken up, has lost it
        await n1.release("t1", second)
        assert await n1.members("n1") == [] and (await n1.owners(["t1"]))["t1"] is None
    finally:
        await client.aclose()


def test_a_silent_nodes_table_is_taken_from_its_set_once_with_a_larger_token(redis_prefix: str) -> None:
    run_async(_steal_scenario(redis_prefix))


async def _restart_scenario(prefix: str) -> None:
    client = aioredis.Redis.from_url(redis_url())
    try:
        before = Leases(client, prefix, "n0", 60.0)
        token = await before.acquire("t2")
        assert token is not None
        await before.release("t3", 0)  # not held: nothing happens
        await client.set(before.node_key("n0"), "{}", px=60_000)  # restarted: beating again
        after = Leases(client, prefix, "n0", 60.0)  # the same name, a new process
        again = await after.steal("t2", "n0")  # its own tables from before the restart
        assert again is not None and again > token
        drained = await after.acquire("t4")
        assert drained is not None
        await after.release("t4", drained, forget=False)  # a drain: the set still lists it
        assert await after.members("n0") == ["t2", "t4"]
    finally:
        await client.aclose()


def test_a_restarted_node_takes_back_its_own_tables_and_a_drain_keeps_its_set(redis_prefix: str) -> None:
    run_async(_restart_scenario(redis_prefix))
