"""The cluster's quick-play queue (niugui/server/cluster/queue.py) raced by two nodes against one real
Redis: both join players and match at the same moments, and nobody is ever seated twice or lost."""

from __future__ import annotations

import asyncio
import time

from redis.asyncio import Redis

from niugui.server.cluster.queue import Entry, Group, RedisQueue
from niugui.server.matchmaking import Ticket

from .conftest import redis_url


def test_two_nodes_matching_at_once_seat_nobody_twice(redis_prefix: str) -> None:
    async def race() -> tuple[list[Group], int]:
        nodes = [RedisQueue(Redis.from_url(redis_url()), redis_prefix, f"n{n}") for n in range(2)]
        groups: list[Group] = []
        for round_ in range(10):  # each round: four join on each node, then both match at once
            for queue in nodes:
                for n in range(4):
                    name = f"{queue.node_id}-r{round_}-p{n}"
                    await queue.join(Entry(Ticket(name, time.time()), queue.node_id, name))
            for found in await asyncio.gather(*(q.match(time.time()) for q in nodes)):
                groups.extend(found)
        conflicts = sum(q.conflicts for q in nodes)
        for queue in nodes:
            await queue.redis.aclose()
        return groups, conflicts

    groups, conflicts = asyncio.run(race())
    seated = [w.account_id for g in groups for w in g.people]
    assert len(seated) == len(set(seated)) == 80, "somebody seated twice, or lost"
    assert all(len(g.people) == 4 for g in groups)
    assert conflicts > 0, "the two nodes never matched at the same moment: no race was tested"


def test_a_group_is_made_where_most_of_its_players_are() -> None:
    from niugui.server.cluster.queue import Waiter
    from niugui.server.matchmaking import Preferences

    people = [Waiter("a", "n0", "A"), Waiter("b", "n1", "B"), Waiter("c", "n1", "C"), Waiter("d", "n0", "D")]
    group = Group(people, Preferences(), 0)
    assert group.home("n1") == "n1" and group.home("n0") == "n0" and group.home("n2") == "n0"  # a tie
    assert Group(people[:3], Preferences(), 0).home("n0") == "n1"
    assert Group(people[:3], Preferences(), 0).home("n0", frozenset({"n0"})) == "n0"  # n1 is gone


def test_the_tickets_of_a_node_that_died_are_dropped(redis_prefix: str) -> None:
    async def run() -> tuple[list[Group], list[str]]:
        queue = RedisQueue(Redis.from_url(redis_url()), redis_prefix, "n0")
        await queue.join(Entry(Ticket("new", time.time()), "n2", "new"))  # n2: too new to be known yet
        for n in range(4):
            node = "n1" if n == 0 else "n0"  # one player waits on n1, which is gone (for a while now)
            await queue.join(Entry(Ticket(f"p{n}", time.time() - 60), node, f"p{n}"))
        groups = await queue.match(time.time(), frozenset({"n0"}))
        left = sorted(await queue.entries())
        await queue.redis.aclose()
        return groups, left

    groups, left = asyncio.run(run())
    # n1's player is neither seated nor waiting; the one of n2 (just started) is seated with the others
    assert [sorted(w.account_id for w in g.people) for g in groups] == [["new", "p1", "p2", "p3"]]
    assert left == []


def test_an_unchanged_queue_is_not_matched_again(redis_prefix: str) -> None:
    async def run() -> list[bool]:
        queue = RedisQueue(Redis.from_url(redis_url()), redis_prefix, "n0")
        seen = [await queue.idle(time.time())]  # never matched: not known idle
        for n in range(3):
            await queue.join(Entry(Ticket(f"p{n}", time.time()), "n0", f"p{n}"))
        await queue.join(Entry(Ticket("late", time.time(), ready_at=time.time() + 60), "n0", "late"))
        assert await queue.match(time.time()) == []  # three ready, one delayed: no four
        seen.append(await queue.idle(time.time()))  # nothing changed: a match would find nothing
        seen.append(await queue.idle(time.time() + 61))  # the delayed player is ready then
        await queue.join(Entry(Ticket("p3", time.time()), "n0", "p3"))
        seen.append(await queue.idle(time.time()))  # someone joined
        assert len(await queue.match(time.time())) == 1
        await queue.redis.aclose()
        return seen

    assert asyncio.run(run()) == [False, True, False, False]
