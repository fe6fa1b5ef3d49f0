"""A survivor's takeover in batches (issue 32), its failure paths alone: a node object whose Redis,
store and tables are stand-ins, so that a Redis error can be put exactly where it hurts. The whole
takeover with real nodes is in test_cluster_failover.py."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from niugui.server.cluster.node import ADOPT_BATCH, Node
from niugui.server.store import StoredTable

TABLES = [f"t{n:02}" for n in range(20)]  # two batches: 16 and 4


def survivor(status: dict[str, str], release_fails: set[str]) -> tuple[Node, list[str], list[str]]:
    """A node whose steals all succeed, whose store holds ``status`` (table → its status) and whose
    Redis fails to release the leases of ``release_fails``; the tables it installed and released."""
    node = Node.__new__(Node)
    node.fences, node._adopting, node._stopping, node.loads = {}, set(), False, {}
    node.node_id = "me"
    node.settings = SimpleNamespace(lease_seconds=5.0)  # type: ignore[assignment]
    installed: list[str] = []
    released: list[str] = []

    async def steal(table_id: str, dead: str) -> int:
        return 10

    async def release(table_id: str, token: int, forget: bool = True) -> None:
        if table_id in release_fails:
            raise ConnectionError("a Redis blip")
        released.append(table_id)

    async def remove(table_ids: list[str]) -> None:
        pass

    def stored_tables(ids: list[str], recent: int, fences: Any = None) -> dict[str, StoredTable]:
        return {t: StoredTable("a1", None, status[t], None, [], []) for t in ids}

    node.leases = SimpleNamespace(steal=steal, acquire=steal, release=release)  # type: ignore[assignment]
    node.index = SimpleNamespace(remove=remove)  # type: ignore[assignment]
    node.metrics = SimpleNamespace(owned=SimpleNamespace(set=lambda n: None))  # type: ignore[assignment]
    node.hub = SimpleNamespace(  # type: ignore[assignment]
        tables={},
        config=SimpleNamespace(replay_limit=8),
        store=SimpleNamespace(stored_tables=stored_tables, table_row=lambda t: {}),
        loader=SimpleNamespace(replayed=lambda t, s: (t, []), build=lambda t, r: t),
    )

    def install(table_id: str, table: Any) -> None:
        node.hub.tables[table_id] = table
        installed.append(table_id)

    node._install = install  # type: ignore[method-assign]
    return node, installed, released


def test_a_redis_error_on_one_tables_release_costs_only_that_table() -> None:
    status = {t: "finished" if t == "t00" else "playing" for t in TABLES}
    node, installed, released = survivor(status, release_fails={"t00"})
    asyncio.run(node._adopt_all(TABLES, "dead"))  # nothing escapes
    assert installed == TABLES[1:] and released == []
    assert sorted(node.fences) == TABLES[1:]  # t00's lease runs out (nobody renews it)
    assert node._adopting == set() and ADOPT_BATCH == 16


def test_a_batch_that_fails_leaves_its_tables_to_the_reconcile_and_the_others_go_on() -> None:
    status = {t: "playing" for t in TABLES}
    node, installed, _ = survivor(status, release_fails=set())
    install = node._install

    def broken(table_id: str, table: Any) -> None:
        if table_id == "t03":
            raise RuntimeError("a table that would not start")
        install(table_id, table)

    node._install = broken  # type: ignore[method-assign]
    asyncio.run(node._adopt_all(TABLES, "dead"))
    assert installed == TABLES[:3] + TABLES[16:]
    assert sorted(node.fences) == TABLES[:3] + TABLES[16:]  # the rest: unrenewed, taken again later
    assert node._adopting == set()
