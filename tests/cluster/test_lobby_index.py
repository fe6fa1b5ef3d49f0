"""The cluster's lobby index on a real Redis: a node writes only what changed among its tables, a
reader gets one bounded page (tables with a free seat first), and a finished table leaves it."""

from __future__ import annotations

import redis.asyncio as aioredis
from server_harness import run_async

from niugui.server.cluster.lobby_index import LobbyIndex
from niugui.server.protocol import PlayerRef, TableSettings, TableSummary

from .conftest import redis_url


def summary(table_id: str, taken: int) -> TableSummary:
    seats: list[PlayerRef | None] = [PlayerRef(id=f"a{n}", nickname=f"p{n}") for n in range(taken)]
    seats += [None] * (4 - taken)
    return TableSummary(
        id=table_id,
        name=table_id,
        private=False,
        status="waiting" if taken < 4 else "playing",
        seats=seats,
        spectators=0,
        games_played=0,
        settings=TableSettings(name=table_id),
    )


async def _scenario(prefix: str) -> None:
    client = aioredis.Redis.from_url(redis_url())
    try:
        writer = LobbyIndex(client, prefix, "n0", page=3)
        reader = LobbyIndex(client, prefix, "n1", page=3)
        mine = [summary("full1", 4), summary("open1", 1), summary("full2", 4), summary("open2", 2)]
        assert await writer.publish(mine) == 4
        assert await writer.publish(mine) == 0  # nothing changed: nothing written
        assert await reader.read()
        assert not await reader.read()  # the index did not move: not read again
        listed = [t.id for _, t in reader.listed]
        assert len(listed) == 3 and set(listed[:2]) == {"open1", "open2"}  # a bounded page, free seats first
        assert {n for n, _ in reader.listed} == {"n0"}
        mine[1] = summary("open1", 4)  # someone sat down
        assert await writer.publish(mine[1:]) == 2  # open1 changed, and full1 is gone (finished)
        assert await reader.read()
        assert "full1" not in [t.id for _, t in reader.listed]
        await writer.remove(["open1", "full2", "open2"])
        assert await reader.read() and reader.listed == []
    finally:
        await client.aclose()


def test_changes_are_written_once_and_read_as_one_bounded_page(redis_prefix: str) -> None:
    run_async(_scenario(redis_prefix))
