"""A cluster node's player features beyond its tables (issue 32): quick play with one queue for every
node (:mod:`.quick`), accounts counted across nodes and found wherever they are connected
(:mod:`.presence`, :mod:`.caps`). One object per node, made by the node, with one loop of its own
(every second) so the node's lease, heartbeat and scan loops are untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable

from redis.asyncio import Redis

from .. import logs
from ..hub import Hub
from ..tables import Client
from .bus import Bus, Deliver, QuickGroup, QuickSeated
from .queue import SharedQueue
from .quick import ClusterQuickPlay, Follow

TICK = 1.0
"""Seconds between two rounds of the loop (quick play's match, presence kept alive)."""


class Features:
    """What a node adds for players; ``live()``: the live nodes' ids; ``follow``: subscribe this node's
    connections to another node's table."""

    def __init__(
        self, hub: Hub, bus: Bus, redis: Redis, prefix: str, live: Callable[[], Iterable[str]], follow: Follow
    ) -> None:
        self.hub, self.bus, self.redis, self.prefix, self.live = hub, bus, redis, prefix, live
        self.node_id = bus.node_id
        self.quick = ClusterQuickPlay(hub, bus, SharedQueue(redis, prefix, self.node_id), live, follow)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def notice(self, message: QuickGroup | QuickSeated | Deliver) -> None:
        """A bus message for these features."""
        if isinstance(message, Deliver):
            self._deliver(message)
        else:
            self.quick.notice(message)

    def connect(self, client: Client) -> None:
        """A connection of this node opened."""

    def disconnect(self, client: Client) -> None:
        """A connection of this node closed."""

    def _deliver(self, message: Deliver) -> None:
        directory = self.hub.directory
        if message.author is not None and directory.blocks(message.account, message.author):
            return
        for client in list(directory.connections(message.account)):
            client.send(message.frame)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            try:
                await self.quick.tick()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                logs.warning("cluster features: a round failed", error=type(error).__name__)
