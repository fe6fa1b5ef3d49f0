"""快速开始 on a cluster: one quick-play queue for every node, in Redis.

``qp:tickets`` is a hash (account → the ticket's JSON: the node the player waits on, their nickname,
when they joined, when they may be seated, their preferences); ``qp:recent`` holds each player's
partners at their last quick-play table (fresh faces, as on one node). Who sits with whom is decided
by the same pure rules as on one node (:mod:`niugui.server.matchmaking`), run by whichever node
matches; the match is atomic: the node ``WATCH``es the tickets, reads them, forms its groups and
removes their tickets in one ``MULTI``. When another node changed the tickets meanwhile (it matched
too, or someone joined or left) the transaction is refused and the node reads again — so nobody is
ever in two groups, whichever nodes match at once.

Nothing of a hand is here: only who waits, with what preferences (what the node already knows).

>>> people = [Waiter("a", "n1", "A"), Waiter("b", "n2", "B"), Waiter("c", "n2", "C")]
>>> Group(people, Preferences(), waiting=0).home("n1")
'n2'
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import WatchError

from ..matchmaking import Preferences, Queue, Ticket

RETRIES = 50
"""Matches tried again after another node changed the queue meanwhile (each a fresh read)."""
ORPHAN_SECONDS = 15.0
"""A ticket of a node not (yet) known alive is dropped only after waiting this long: a node that just
started is seen by the others within a heartbeat."""
RECENT_SECONDS = 86400
"""How long a player's last partners are remembered."""
Chooser = Callable[[Queue], list[tuple[list[Ticket], Preferences]]]
"""Which groups to take out of a queue (they leave it)."""


@dataclass(frozen=True)
class Waiter:
    """A player taken out of the queue: their account, the node they are connected to, their name."""

    account_id: str
    node: str
    nickname: str


@dataclass(frozen=True)
class Group:
    """Players seated together (with bots in the seats left when ``bots``), and how many still wait."""

    people: list[Waiter]
    preferences: Preferences
    waiting: int
    bots: bool = False

    def home(self, me: str, live: frozenset[str] | None = None) -> str:
        """The node where most of its players are connected (a tie: ``me`` if among them, else the
        first by name); ``me`` when that node is not alive."""
        counts = Counter(w.node for w in self.people)
        top = max(counts.values())
        best = sorted(n for n, c in counts.items() if c == top)
        chosen = me if me in best else best[0]
        return me if live is not None and chosen not in live else chosen


@dataclass(frozen=True)
class Entry:
    """One waiting player as Redis holds them: the whole :class:`Ticket` the node built as one node
    does (:func:`~niugui.server.matchmaking.new_ticket`), so the matcher applies the same rules —
    its ``origin`` (finding 8) and its ``bots`` consent (finding 9) included. An entry written before
    they were carried loads as not agreed, of unknown origin.

    >>> t = Ticket("a", 1.0, Preferences(20), 2.0, origin="203.0.113.7", bots=True)
    >>> Entry.load("a", Entry(t, "n0", "A").dump(), frozenset()).ticket == t
    True
    >>> old = '{"node": "n0", "nick": "A", "joined": 1.0, "ready": 1.0, "turn": null, "games": null}'
    >>> (lambda t: (t.origin, t.bots))(Entry.load("a", old, frozenset()).ticket)
    ('', False)
    """

    ticket: Ticket
    node: str
    nickname: str
    escapes: int = 0

    def dump(self) -> str:
        t = self.ticket
        return json.dumps(
            {
                "node": self.node,
                "nick": self.nickname,
                "joined": t.joined_at,
                "ready": t.ready_at,
                "turn": t.preferences.turn_seconds,
                "games": t.preferences.games,
                "escapes": self.escapes,
                "origin": t.origin,
                "bots": t.bots,
            },
            ensure_ascii=False,
        )

    @staticmethod
    def load(account: str, text: str | bytes, recent: frozenset[str]) -> Entry:
        d = json.loads(text)
        prefs = Preferences(d["turn"], d["games"])
        origin, bots = str(d.get("origin") or ""), d.get("bots") is True
        ticket = Ticket(account, d["joined"], prefs, d["ready"], recent, origin=origin, bots=bots)
        return Entry(ticket, d["node"], d["nick"], d.get("escapes", 0))


def _orphan(entry: Entry, live: frozenset[str] | None) -> bool:
    """A ticket of a player whose node is gone (their connection with it)."""
    if live is None or entry.node in live:
        return False
    return time.time() - entry.ticket.joined_at > ORPHAN_SECONDS


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisQueue:
    """The cluster's quick-play queue in Redis (every method one or a few round trips)."""

    def __init__(self, redis: Redis, prefix: str, node_id: str) -> None:
        self.redis = redis
        self.node_id = node_id
        self.key = f"{prefix}:qp:tickets"
        self.recent_key = f"{prefix}:qp:recent"
        self.version_key = f"{prefix}:qp:version"
        """Grows with every change of the tickets (a match that found nothing need not run again)."""
        self.quiet: tuple[int, float] | None = None
        """After a match that formed nothing: the version it read, and when a delay ends next."""
        self.conflicts = 0
        """Matches that were refused because another node changed the queue meanwhile."""

    async def join(self, entry: Entry) -> None:
        """Queue a player (again: their place in line and any longer delay are kept)."""
        account = entry.ticket.account_id
        async with self.redis.pipeline(transaction=True) as pipe:
            for _ in range(RETRIES):
                try:
                    await pipe.watch(self.key)
                    old = await pipe.hget(self.key, account)
                    if old is not None:  # as Queue.join: the new ticket, its place in line kept
                        before = Entry.load(account, old, frozenset()).ticket
                        t = entry.ticket
                        ready = max(t.ready_at, before.ready_at)
                        ticket = replace(t, joined_at=before.joined_at, ready_at=ready, recent=frozenset())
                        entry = Entry(ticket, entry.node, entry.nickname, entry.escapes)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(self.key, account, entry.dump())
                    pipe.incr(self.version_key)
                    await pipe.execute()
                    return
                except WatchError:
                    continue
        raise RuntimeError("the quick-play queue changed too often to join it")

    async def leave(self, account_id: str) -> bool:
        """Out of the queue if waiting through this node; whether they were."""
        old = await self.redis.hget(self.key, account_id)
        if old is None or json.loads(old)["node"] != self.node_id:
            return False
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hdel(self.key, account_id)
            pipe.incr(self.version_key)
            removed, _ = await pipe.execute()
        return bool(removed)

    async def drop(self, accounts: list[str]) -> int:
        """Out of the queue, through whichever node they wait; how many were."""
        if not accounts:
            return 0
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hdel(self.key, *accounts)
            pipe.incr(self.version_key)
            removed, _ = await pipe.execute()
        return int(removed)

    async def accounts(self) -> set[str]:
        """Everyone waiting: their accounts only."""
        return {_text(a) for a in await self.redis.hkeys(self.key)}

    async def entries(self) -> dict[str, Entry]:
        """Everyone waiting, by account."""
        raw = await self.redis.hgetall(self.key)
        return {_text(a): Entry.load(_text(a), v, frozenset()) for a, v in raw.items()}

    async def match(self, now: float, live: frozenset[str] | None = None) -> list[Group]:
        """Form every group that can be formed now and take its players out of the queue, atomically;
        the tickets of players connected to a node not in ``live`` (it died) are dropped with them."""
        return await self._take(lambda queue: queue.match(now), False, live, now)

    async def take_with_bots(self, account_id: str, now: float, wait: float) -> list[Group]:
        """The player (waiting ``wait`` s or more) and up to two others ready, for a table with bots;
        empty when they may not yet (or do not wait)."""

        def choose(queue: Queue) -> list[tuple[list[Ticket], Preferences]]:
            taken = queue.take_with_bots(account_id, now, wait)
            return [] if taken is None else [taken]

        return await self._take(choose, True)

    async def idle(self, now: float) -> bool:
        """Whether a match now would form nothing for sure: the tickets are as the last match that
        formed nothing read them, and no fair-play delay has ended since."""
        if self.quiet is None:
            return False
        version = int(await self.redis.get(self.version_key) or 0)
        return version == self.quiet[0] and now < self.quiet[1]

    async def _take(
        self, choose: Chooser, bots: bool, live: frozenset[str] | None = None, now: float | None = None
    ) -> list[Group]:
        async with self.redis.pipeline(transaction=True) as pipe:
            for _ in range(RETRIES):
                try:
                    await pipe.watch(self.key, self.recent_key)
                    raw = await pipe.hgetall(self.key)
                    version = int(await pipe.get(self.version_key) or 0)
                    if not raw:
                        return []
                    recent = {_text(a): v for a, v in (await pipe.hgetall(self.recent_key)).items()}
                    entries = {
                        _text(a): Entry.load(_text(a), v, frozenset(json.loads(recent.get(_text(a), "[]"))))
                        for a, v in raw.items()
                    }
                    gone = [a for a, e in entries.items() if _orphan(e, live)]
                    queue = Queue()  # joined one by one: the matcher's index is built as they join
                    waiting = [e.ticket for a, e in entries.items() if a not in gone]
                    for ticket in sorted(waiting, key=lambda t: (t.joined_at, t.account_id)):
                        queue.join(ticket)
                    chosen = choose(queue)
                    if not chosen and not gone:
                        if now is not None:
                            later = [t.ready_at for t in queue.tickets.values() if t.ready_at > now]
                            self.quiet = (version, min(later, default=float("inf")))
                        return []
                    pipe.multi()  # type: ignore[no-untyped-call]
                    if gone:
                        pipe.hdel(self.key, *gone)
                    self._commit(pipe, chosen)
                    await pipe.execute()
                except WatchError:
                    self.conflicts += 1
                    continue
                return [
                    Group([self._waiter(entries[t.account_id]) for t in group], prefs, len(queue), bots)
                    for group, prefs in chosen
                ]
        raise RuntimeError("the quick-play queue changed too often to match it")

    def _commit(self, pipe: Pipeline, chosen: list[tuple[list[Ticket], Preferences]]) -> None:
        for group, _ in chosen:
            accounts = [t.account_id for t in group]
            pipe.hdel(self.key, *accounts)
            for account in accounts:
                pipe.hset(self.recent_key, account, json.dumps(sorted(set(accounts) - {account})))
        pipe.expire(self.recent_key, RECENT_SECONDS)
        pipe.incr(self.version_key)

    @staticmethod
    def _waiter(entry: Entry) -> Waiter:
        return Waiter(entry.ticket.account_id, entry.node, entry.nickname)
