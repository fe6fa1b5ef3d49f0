"""A Swiss event's runner lease on a real Redis (niugui/server/cluster/swiss.py): one node at a time
holds it; a node that finds its lease taken stops running the event; a lease taken for a start that
did not happen is let go after a few rounds; a draining node lets its events go at once."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import redis.asyncio as aioredis
from server_harness import run_async

from niugui.server.cluster import swiss
from niugui.server.cluster.swiss import IDLE_TICKS, ClusterSwiss

from .conftest import redis_url


def runner(client: aioredis.Redis, prefix: str, node: str) -> tuple[ClusterSwiss, Any]:
    """A node's :class:`ClusterSwiss` over a stand-in hub (only its Swiss rounds' ``running`` is read)."""
    rounds = SimpleNamespace(running={})
    hub: Any = SimpleNamespace(swiss=rounds, store=SimpleNamespace(engine=None))
    bus: Any = SimpleNamespace(node_id=node)

    async def nobody(accounts: list[str]) -> set[str]:
        return set()

    async def nowhere(account: str) -> list[str]:
        return []

    return ClusterSwiss(hub, bus, client, prefix, nobody, nowhere, lambda *_: None), rounds


async def _scenario(prefix: str) -> None:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        a, a_rounds = runner(client, prefix, "n0")
        b, b_rounds = runner(client, prefix, "n1")
        assert await a.take("e1") and not await b.take("e1")  # one runner at a time
        a_rounds.running["e1"] = object()
        await a.tick()
        assert await client.get(f"{prefix}:swiss:e1") == "n0" and "e1" in a.held
        await client.set(f"{prefix}:swiss:e1", "n1")  # n0 was stalled past its lease; n1 took it over
        await a.tick()
        assert "e1" not in a_rounds.running and "e1" not in a.held  # n0 stops running it
        assert await client.get(f"{prefix}:swiss:e1") == "n1"

        assert await a.take("e2")  # a start that did not happen (the claim found it started): let go
        for _ in range(IDLE_TICKS):
            assert await client.get(f"{prefix}:swiss:e2") == "n0"
            await a.tick()
        assert await client.get(f"{prefix}:swiss:e2") is None and await b.take("e2")
        b_rounds.running["e2"] = object()
        await b.stop()  # draining: let go at once, even while running it
        assert await client.get(f"{prefix}:swiss:e2") is None
    finally:
        await client.aclose()


def test_one_runner_per_swiss_and_a_lost_lease_stops_the_runner(
    redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no event in the store to take over
    monkeypatch.setattr(swiss, "SwissStore", lambda engine: SimpleNamespace(running=list))
    run_async(_scenario(redis_prefix))
