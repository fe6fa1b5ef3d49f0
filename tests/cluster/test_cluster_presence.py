"""Who is connected where (niugui/server/cluster/presence.py) against a real Redis: two nodes' parts
read together, connections counted across them, a bot account found by its name in any case, a
closed connection forgotten, and a node that is not alive not counted."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from redis.asyncio import Redis

from niugui.server.cluster.presence import Presence

from .conftest import redis_url


@dataclass(eq=False)
class Conn:
    account_id: str
    nickname: str = "x"
    sent: list[str] = field(default_factory=list)

    def send(self, message: str) -> None:
        self.sent.append(message)


def test_two_nodes_presence_read_together(redis_prefix: str) -> None:
    async def run() -> None:
        live = {"n0", "n1"}
        nodes = [Presence(Redis.from_url(redis_url()), redis_prefix, f"n{n}", lambda: live) for n in range(2)]
        ann0, ann1, bot = Conn("ann"), Conn("ann"), Conn("b1")
        nodes[0].connect(ann0, None)  # type: ignore[arg-type]
        nodes[1].connect(ann1, None)  # type: ignore[arg-type]
        nodes[1].connect(bot, "RoboCat")  # type: ignore[arg-type]
        await asyncio.gather(*(n.flush(None) for n in nodes))
        reader = nodes[0]
        assert await reader.connections("ann") == 2
        assert await reader.nodes_of("ann") == ["n0", "n1"]
        assert await reader.online(["ann", "b1", "nobody"]) == {"ann", "b1"}
        assert await reader.bot("robocat") == ("n1", "b1")
        assert nodes[1].disconnect(ann1)  # type: ignore[arg-type]
        assert not nodes[1].disconnect(Conn("proxy"))  # type: ignore[arg-type]  (not this node's)
        await nodes[1].flush(None)
        assert await reader.nodes_of("ann") == ["n0"]
        live.discard("n1")  # n1 is gone: its part is not read (its keys expire by themselves)
        assert await reader.bot("robocat") is None and await reader.online(["b1"]) == set()
        for node in nodes:
            await node.redis.aclose()

    asyncio.run(run())
