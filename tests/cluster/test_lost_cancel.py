"""A node's loops end when it stops even if a library swallows the cancellation meant for them:
redis-py was seen to lose one, and the drain then waited for ever on ``_lobbying`` (found by the
dump of niugui/server/stacks.py in test_supervisor)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from niugui.server.cluster.node import Node

LOOPS = ("_renewing", "_beating", "_lobbying")


@pytest.mark.parametrize("loop", LOOPS)
def test_a_loop_ends_on_stop_when_its_cancellation_is_swallowed(loop: str) -> None:
    async def main() -> bool:
        inside = asyncio.Event()
        swallow = [True]

        async def swallowing() -> None:  # what the lost cancellation looks like from the loop
            inside.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                if not swallow[0]:
                    raise

        async def quick() -> None:
            return None

        settings = SimpleNamespace(heartbeat_seconds=0.01, lobby_seconds=0.01)
        node: Any = SimpleNamespace(_stopping=False, _period=0.01, settings=settings, _renew=swallowing,
                                    _reconcile=quick, _follow_owners=quick, _heartbeat=swallowing,
                                    _lobby=swallowing)  # fmt: skip
        task = asyncio.create_task(getattr(Node, loop)(node))
        entered = asyncio.create_task(inside.wait())
        await asyncio.wait({task, entered}, return_when=asyncio.FIRST_COMPLETED)  # a loop that fails ends
        assert not task.done(), task.exception()
        node._stopping = True
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=5)  # without the check it goes round for ever
        swallow[0] = False  # (so that this test ends either way)
        task.cancel()
        await asyncio.wait({task})
        return bool(done)

    assert asyncio.run(main()), f"{loop} went on after the node stopped"
