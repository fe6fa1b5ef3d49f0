"""Swiss tournaments (issue 30) on a cluster: the hub's Swiss rounds
(:class:`~niugui.server.events.swiss_rounds.SwissRounds`) with the cluster's hooks.

- **One runner.** ``swiss:<event>`` in Redis names the node that runs the event (taken before the
  database's claim closes the registration, so two nodes never both start it; renewed every round of
  the features' loop, :data:`LEASE_MS`). A node whose lease was lost stops running the event.
- **Takeover.** Every few rounds each node reads the events in progress (the database's); one with no
  runner is taken (the lease first) and carried on from its stored progress, as after a restart. A
  round's table of another node is followed there (the table's own lease names its node).
- **Presence** at a round's start: connected to any node (``online:<node>``, :mod:`.presence`).
- **Seating.** A round's tables open on the runner; entrants connected to other nodes are told there
  (:class:`.EventSeatedAt`: ``event_seated``) and follow their table from their node; ``play_event``
  reaches it from any node (a watch forwarded to the table's node).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis

from .. import logs
from ..events.swiss_store import SwissStore
from ..hub import Hub
from ..protocol import EventSeated
from ..tables import Client
from .bus import Bus, EventSeatedAt
from .quick import Follow

LEASE_MS = 10_000
"""A runner's lease lives this long after its last renewal (renewed every second)."""
TAKEOVER_TICKS = 3
"""Rounds of the features' loop between two looks for events without a runner."""
IDLE_TICKS = 5
"""Rounds a lease taken for a start that did not happen (claimed elsewhere, or over) is kept."""
OWNER_TRIES = 30
"""Seconds a takeover waits for a round's table to have a node again (its own takeover)."""

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


class ClusterSwiss:
    """The Swiss events as one node runs them (hooks set on ``hub.swiss``)."""

    def __init__(
        self,
        hub: Hub,
        bus: Bus,
        redis: Redis,
        prefix: str,
        online: Callable[[list[str]], Awaitable[set[str]]],
        nodes_of: Callable[[str], Awaitable[list[str]]],
        follow: Follow,
    ) -> None:
        self.hub, self.bus, self.redis, self.prefix = hub, bus, redis, prefix
        self.node_id = bus.node_id
        self.nodes_of, self.follow = nodes_of, follow
        self.held: dict[str, int] = {}
        """Events whose lease this node holds → rounds it has held it without running the event."""
        self._ticks = 0
        self._tasks: set[asyncio.Task[None]] = set()
        rounds = hub.swiss
        rounds.online, rounds.lease = online, self.take
        rounds.seated_elsewhere, rounds.watch_elsewhere = self.seated_elsewhere, self.watch_elsewhere

    def key(self, event_id: str) -> str:
        return f"{self.prefix}:swiss:{event_id}"

    async def take(self, event_id: str) -> bool:
        """The event's lease, if nobody holds it (True: this node runs the event from now on)."""
        if event_id in self.held:
            return True
        if not await self.redis.set(self.key(event_id), self.node_id, nx=True, px=LEASE_MS):
            return False
        self.held[event_id] = 0
        return True

    async def tick(self) -> None:
        """Renew the leases of the events run here (stop one whose lease was lost), let go of those
        not run, and now and then take over the events nobody runs."""
        self._ticks += 1
        running = self.hub.swiss.running
        for event_id in list(self.held):
            if event_id not in running:
                self.held[event_id] += 1
                if self.held[event_id] >= IDLE_TICKS:
                    await self.release(event_id)
            elif not await self.redis.eval(_RENEW, 1, self.key(event_id), self.node_id, LEASE_MS):
                self.held.pop(event_id, None)
                running.pop(event_id, None)
                logs.warning("swiss: the event's lease was lost; another node runs it", event=event_id)
        if self._ticks % TAKEOVER_TICKS == 0:
            await self._take_over()

    async def _take_over(self) -> None:
        swiss = SwissStore(self.hub.store.engine)
        for event_id in await asyncio.to_thread(swiss.running):
            if event_id in self.hub.swiss.running or event_id in self.held:
                continue
            if not await self.take(event_id):
                continue
            logs.info("swiss: taking over an event nobody runs", event=event_id, node=self.node_id)
            loaded = await asyncio.to_thread(self.hub.swiss.load, event_id)
            if loaded is None:
                await self.release(event_id)
            else:
                self.hub.swiss.carry_on(loaded)

    async def release(self, event_id: str) -> None:
        self.held.pop(event_id, None)
        await self.redis.eval(_RELEASE, 1, self.key(event_id), self.node_id)

    async def stop(self) -> None:
        """Let the events run here go at once (another node takes them over within moments)."""
        for event_id in list(self.held):
            await self.release(event_id)

    # ---- seating across nodes ---------------------------------------------------------------------

    def seated_elsewhere(self, event_id: str, round_no: int, table: str, seats: dict[str, int]) -> None:
        """Tell each node where a seated entrant is connected (but this one) their seats."""
        self._spawn(self._seated_elsewhere(event_id, round_no, table, seats))

    async def _seated_elsewhere(
        self, event_id: str, round_no: int, table: str, seats: dict[str, int]
    ) -> None:
        by_node: dict[str, dict[str, int]] = {}
        for account, seat in seats.items():
            for node in await self.nodes_of(account):
                if node != self.node_id:
                    by_node.setdefault(node, {})[account] = seat
        for node, mine in by_node.items():
            told = EventSeatedAt(event=event_id, round=round_no, table=table, node=self.node_id, seats=mine)
            self.bus.send(node, told)

    def notice(self, message: EventSeatedAt) -> None:
        """This node's entrants seated at another node's table: told, and following it from here."""
        for account, seat in message.seats.items():
            clients = list(self.hub.directory.connections(account))
            if not clients:
                continue
            self.follow(message.table, message.node, clients)
            frame = EventSeated(
                type="event_seated", event=message.event, round=message.round, table=message.table, seat=seat
            ).model_dump_json()
            for client in clients:
                client.send(frame)

    def watch_elsewhere(self, table: str, watcher: Client) -> None:
        """Follow a round's table at the node that holds its lease (after a takeover)."""
        self._spawn(self._watch_elsewhere(table, watcher))

    async def _watch_elsewhere(self, table: str, watcher: Client) -> None:
        for _ in range(OWNER_TRIES):
            held = await self.redis.get(f"{self.prefix}:lease:{table}")
            if held is not None:
                owner = (held.decode() if isinstance(held, bytes) else str(held)).partition("|")[0]
                self.follow(table, owner, [watcher])
                return
            await asyncio.sleep(1.0)
        logs.warning("swiss: a round's table has no node; it is not followed", table=table)

    def _spawn(self, work: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_done)


def _done(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logs.warning("cluster swiss: a task failed", error=repr(task.exception()))
