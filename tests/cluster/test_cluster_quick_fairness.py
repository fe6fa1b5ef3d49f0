"""Quick play's fair-play rules of issue 33 on a cluster (issue 32: every feature of one node on two):
the shared queue's tickets carry the player's origin (finding 8: one address's accounts never at one
table) and their consent to bots (finding 9: ``queue_bots`` takes along only those who agreed), and
the same matcher applies them; a player seated at a node's table leaves the queue. Real Redis here;
real nodes in test_cluster_quick_play.py."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from redis.asyncio import Redis
from table_harness import client, rig

from niugui.server.cluster.queue import Entry, RedisQueue
from niugui.server.cluster.quick import ClusterQuickPlay
from niugui.server.matchmaking import EscapePolicy, Preferences, new_ticket
from niugui.server.protocol import TableSettings

from .conftest import redis_url

T = TypeVar("T")


def with_queues(redis_prefix: str, work: Callable[[list[RedisQueue]], Awaitable[T]]) -> T:
    """``work`` with the queues of two nodes, n0 and n1, of one Redis key prefix."""

    async def run() -> T:
        queues = [RedisQueue(Redis.from_url(redis_url()), redis_prefix, f"n{n}") for n in range(2)]
        try:
            return await work(queues)
        finally:
            for queue in queues:
                await queue.redis.aclose()

    return asyncio.run(run())


def entry(queue: RedisQueue, account: str, address: str, joined: float, bots: bool = False) -> Entry:
    """The entry a node makes for a player connected to it from ``address`` (as one node would)."""
    ticket = new_ticket(account, address, joined, Preferences(), 0, EscapePolicy(), bots)
    return Entry(ticket, queue.node_id, account)


def test_finding_8_one_addresss_accounts_on_two_nodes_are_not_matched_together(redis_prefix: str) -> None:
    """Two accounts of one address, queued through different nodes, and two people: no four while
    nobody else waits; a fifth person makes the four without one of them. Before: the shared queue
    forgot the origin, and the two accounts of one address were seated together at once."""

    async def work(queues: list[RedisQueue]) -> tuple[list[list[str]], list[list[str]], list[str]]:
        n0, n1 = queues
        now = time.time()
        await n0.join(entry(n0, "same-a", "203.0.113.7", now))
        await n1.join(entry(n1, "same-b", "203.0.113.7", now + 0.1))
        await n0.join(entry(n0, "p1", "198.51.100.1", now + 0.2))
        await n1.join(entry(n1, "p2", "192.0.2.5", now + 0.3))
        first = [sorted(w.account_id for w in g.people) for g in await n1.match(now + 1)]
        await n1.join(entry(n1, "p3", "198.51.100.9", now + 0.4))
        second = [sorted(w.account_id for w in g.people) for g in await n0.match(now + 1)]
        return first, second, sorted(await n0.entries())

    first, second, left = with_queues(redis_prefix, work)
    assert first == []
    assert second == [["p1", "p2", "p3", "same-a"]] and left == ["same-b"]


def test_finding_9_queue_bots_on_a_cluster_takes_only_those_who_agreed(redis_prefix: str) -> None:
    """A player's ``queue_bots`` through n0 with two strangers waiting through n1: only the one who
    agreed is taken along; the other keeps waiting. Before: the shared queue forgot the consent, so
    nobody was ever taken along on a cluster (issue 28's two people with bots played alone)."""

    async def work(queues: list[RedisQueue]) -> tuple[list[list[str]], list[str]]:
        n0, n1 = queues
        now = time.time() - 60
        await n0.join(entry(n0, "asker", "203.0.113.7", now))
        await n1.join(entry(n1, "refused", "198.51.100.1", now + 1))
        await n1.join(entry(n1, "agreed", "192.0.2.5", now + 2, bots=True))
        taken = await n0.take_with_bots("asker", time.time(), 30.0)
        return [[w.account_id for w in g.people] for g in taken], sorted(await n0.entries())

    taken, left = with_queues(redis_prefix, work)
    assert taken == [["asker", "agreed"]] and left == ["refused"]


def test_joining_again_keeps_the_place_and_takes_the_new_consent(redis_prefix: str) -> None:
    """Joining again (new preferences, the box ticked) keeps the place in line and the longer delay,
    and replaces the consent, as one node's queue does; an entry written before the origin and the
    consent were carried loads as unknown origin, not agreed."""

    async def work(queues: list[RedisQueue]) -> tuple[Entry, Entry]:
        n0, _ = queues
        await n0.join(entry(n0, "ann", "203.0.113.7", 100.0))
        await n0.join(entry(n0, "ann", "203.0.113.7", 200.0, bots=True))
        old = {"node": "n0", "nick": "bob", "joined": 1.0, "ready": 1.0, "turn": None, "games": None}
        await n0.redis.hset(n0.key, "bob", json.dumps(old))
        entries = await n0.entries()
        return entries["ann"], entries["bob"]

    ann, bob = with_queues(redis_prefix, work)
    assert (ann.ticket.joined_at, ann.ticket.bots, ann.ticket.origin) == (100.0, True, "203.0.113.7")
    assert (bob.ticket.origin, bob.ticket.bots) == ("", False)


def test_finding_9_one_who_sat_down_before_the_node_knew_they_wait_leaves_the_queue(
    tmp_path: Path, redis_prefix: str
) -> None:
    """A player waiting through n0 sat down at n1's table in the moment before n1 read the queue
    (its ``sit`` check): n1's next round takes them out of the queue, whichever node they wait
    through, and tells their connections here, so they are not matched into a second game. Before:
    they stayed in the queue, to be seated at a second table."""
    r = rig(tmp_path)
    ann, bob = client(0), client(1)
    r.hub.connect(ann)
    table = r.hub.create_table(bob, TableSettings(), lambda _a: None)
    r.call(table.sit, ann, 0)

    async def nowhere(_account: str) -> None:
        return None

    async def no_nodes(_account: str) -> list[str]:
        return []

    async def work(queues: list[RedisQueue]) -> tuple[list[str], bool]:
        n0, n1 = queues
        await n0.join(entry(n0, ann.account_id, "", time.time()))
        await n0.join(entry(n0, "other", "", time.time()))
        live = ["n0", "n1"]
        quick = ClusterQuickPlay(r.hub, None, n1, lambda: live, lambda *_: None, nowhere, no_nodes)  # type: ignore[arg-type]
        await quick.tick()
        return sorted(await n0.entries()), quick.waiting(ann.account_id)

    left, waiting = with_queues(redis_prefix, work)
    assert left == ["other"] and not waiting
    told = [json.loads(f) for f in ann.frames if '"queue"' in f]
    assert told and told[-1]["status"] == "left"
