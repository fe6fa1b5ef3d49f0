"""The node's fenced event writer, alone (no Redis): writes carry the table's token; a table this node
does not hold is refused before the store; a new table is leased before its first write."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from server_harness import run_async

from niugui.server.cluster.node import FencedWriter
from niugui.server.protocol import EvReady, EvTableCreated, TableSettings
from niugui.server.store import StaleWrite, Write
from niugui.server.writer import Done


class Inner:
    def __init__(self) -> None:
        self.stored: list[Write] = []

    def submit(self, writes: Sequence[Write], done: Done) -> None:
        self.stored += writes
        done(None)

    def close(self) -> None:
        pass


def fake_node(token: int | None) -> Any:
    async def acquire(_table: str) -> int | None:
        return token

    counter = SimpleNamespace(inc=lambda: None)
    return SimpleNamespace(
        fences={},
        leases=SimpleNamespace(acquire=acquire),
        settings=SimpleNamespace(lease_seconds=5.0),
        metrics=SimpleNamespace(refused=counter),
    )


def test_tokens_refusals_and_new_tables() -> None:
    async def scenario() -> None:
        inner, node = Inner(), fake_node(7)
        writer = FencedWriter(inner, node)
        outcomes: list[BaseException | None] = []
        ready = Write("t1", 2, 0.0, "waiting", EvReady(kind="ready", seat=0))
        writer.submit([ready], outcomes.append)
        assert isinstance(outcomes[-1], StaleWrite) and not inner.stored  # not this node's table
        created = EvTableCreated(kind="table_created", settings=TableSettings(), creator="a")
        writer.submit([Write("t1", 1, 0.0, "waiting", created, creator="a")], outcomes.append)
        while len(outcomes) < 2:
            await asyncio.sleep(0)  # the lease is taken on the loop, then the write goes on
        assert outcomes[-1] is None and [w.fence for w in inner.stored] == [7]
        writer.submit([ready], outcomes.append)
        assert outcomes[-1] is None and inner.stored[-1].fence == 7
        node.fences["t1"] = (7, time.monotonic() - 1)  # the lease ran out unrenewed (a paused node)
        writer.submit([Write("t1", 3, 0.0, "waiting", EvReady(kind="ready", seat=1))], outcomes.append)
        assert isinstance(outcomes[-1], StaleWrite) and "t1" not in node.fences and len(inner.stored) == 2

    run_async(scenario())
