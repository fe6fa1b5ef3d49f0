"""快速开始 on a cluster node: the hub's quick play (:class:`~niugui.server.quick_tables.QuickTables`)
with the queue of every node (:mod:`.queue`) instead of its own.

- **Join** puts the player's ticket in Redis (with the node they are connected to), then matches.
- **Match** (on each join, and every second on each node: fair-play delays end, others joined
  elsewhere) takes the groups out of the queue atomically; each group's table is made on the node
  where most of its players are connected (:meth:`.Group.home`): here, or sent there
  (:class:`.QuickGroup`). The owner seats them; players connected to other nodes are told there
  (:class:`.QuickSeated`) and follow the table from their node, as any forwarded watcher does.
- **Bots** after the wait (``queue_bots``), as on one node: the player and up to two others ready.
- **Status**: each node tells its own waiting players how many wait, when the count changes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Literal

from .. import logs
from ..config import Community
from ..hub import Hub
from ..matchmaking import SEATS, EscapePolicy, Preferences, new_ticket
from ..protocol import QueueStatus
from ..quick_tables import seated_elsewhere
from ..store import PlayerCard
from ..tables import Answer, Client, Fault, Reply
from .bus import Bus, QuickGroup, QuickPerson, QuickSeated
from .presence import seats_here
from .queue import Entry, Group, RedisQueue, Waiter

Follow = Callable[[str, str, list[Client]], None]
"""Subscribe this node's connections to a table of another node: (table, owner, connections)."""
SeatedAt = Callable[[str], Awaitable[str | None]]
"""A table of another node where the account holds a seat (not finished), if any."""


class ClusterQuickPlay:
    """The shared queue as one node uses it (it is the hub's ``quick.shared``)."""

    def __init__(
        self,
        hub: Hub,
        bus: Bus,
        queue: RedisQueue,
        live: Callable[[], Iterable[str]],
        follow: Follow,
        seated_at: SeatedAt,
        nodes_of: Callable[[str], Awaitable[list[str]]],
    ) -> None:
        self.hub, self.bus, self.queue, self.live, self.follow = hub, bus, queue, live, follow
        self.seated_at, self.nodes_of = seated_at, nodes_of
        self.node_id = queue.node_id
        self.settings: Community = hub.config.community
        s = self.settings
        self.policy = EscapePolicy(s.escape_window, s.escape_free, s.escape_delay, s.escape_max_delay)
        self.told: dict[str, int] = {}
        """This node's waiting accounts → the count each was last told."""
        self.queued: set[str] = set()
        """Every account in the shared queue, as this node last read it or changed it (:meth:`waiting`)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._ticks = 0
        hub.quick.shared = self

    # ---- the hub's hooks ------------------------------------------------------------------------------

    def join(
        self, client: Client, preferences: Preferences, card: PlayerCard, reply: Reply, bots: bool = False
    ) -> None:
        """Queue the account with the ticket one node would make (its origin and bots consent too)."""
        escapes, account = card.recent_escapes, client.account_id
        ticket = new_ticket(account, client.address, time.time(), preferences, escapes, self.policy, bots)
        self._spawn(self._join(Entry(ticket, self.node_id, client.nickname, escapes), reply))

    def waiting(self, account_id: str) -> bool:
        """Whether the account waits in the shared queue, through any node, as this node last read it
        (every second) or changed it: a ``sit`` at this node's tables is refused meanwhile."""
        return account_id in self.queued

    def leave(self, account_id: str) -> None:
        self._spawn(self._leave(account_id))

    def with_bots(self, account_id: str, reply: Reply) -> None:
        self._spawn(self._with_bots(account_id, reply))

    def seated_elsewhere(self, table_id: str, seats: dict[str, int]) -> None:
        self._spawn(self._seated_elsewhere(table_id, seats))

    async def _seated_elsewhere(self, table_id: str, seats: dict[str, int]) -> None:
        """再来一局 seated people of other nodes here: each node where one is connected is told."""
        for account, seat in seats.items():
            for node in await self.nodes_of(account):
                if node != self.node_id:
                    self.bus.send(node, QuickSeated(table=table_id, node=self.node_id, seats={account: seat}))

    def notice(self, message: QuickGroup | QuickSeated) -> None:
        """A group to seat here, or this node's players seated at another node's table."""
        if isinstance(message, QuickGroup):
            people = [Waiter(p.account, p.node, p.nickname) for p in message.people]
            prefs = Preferences(message.turn_seconds, message.games)
            self._open(Group(people, prefs, message.waiting, message.bots))
            return
        for account, seat in message.seats.items():
            self.told.pop(account, None)
            self.queued.discard(account)
            clients = list(self.hub.directory.connections(account))
            self._tell(account, _seated(message.table, seat, message.waiting))
            if clients:
                self.follow(message.table, message.node, clients)

    async def tick(self) -> None:
        """Read who waits (what :meth:`waiting` answers), match, and tell this node's waiting players
        the count when it changed (every second).
        Fewer than four waiting form no group, nor does a queue unchanged since a match that formed
        none (until a fair-play delay ends): then only every tenth round (a dead node's tickets)."""
        self._ticks += 1
        self.queued = await self.queue.accounts()
        await self._drop_seated()
        waiting = len(self.queued)
        purge = waiting and self._ticks % 10 == 0
        if purge or (waiting >= SEATS and not await self.queue.idle(time.time())):
            await self.match()
        if not self.told:
            return
        entries = await self.queue.entries()
        self.queued = set(entries)
        for account in list(self.told):
            entry = entries.get(account)
            if entry is None or entry.node != self.node_id:
                self.told.pop(account, None)
            elif self.told[account] != len(entries):
                self._tell_waiting(entry, len(entries))

    async def _drop_seated(self) -> None:
        """Out of the queue, whichever node they wait through, the accounts seated at this node's
        unfinished tables: one who sat down here in the moment before this node read that they wait
        (:meth:`waiting`) is not matched into a second game (issue 33, finding 9)."""
        if not self.queued:
            return
        seated = sorted(self.queued & seats_here(self.hub.directory).keys())
        if seated and await self.queue.drop(seated):
            logs.info("quick play: seated players taken out of the queue", players=len(seated))
        for account in seated:
            self.queued.discard(account)
            self.told.pop(account, None)
            self._tell(account, _status("left", len(self.queued)))

    async def match(self) -> None:
        for group in await self.queue.match(time.time(), frozenset(self.live())):
            self._place(group)

    # ---- inside ---------------------------------------------------------------------------------------

    def _spawn(self, work: object) -> None:
        assert asyncio.iscoroutine(work)
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logs.warning("cluster quick play failed", error=repr(task.exception()))

    async def _join(self, entry: Entry, reply: Reply) -> None:
        account = entry.ticket.account_id
        try:
            seated = await self.seated_at(account)
            if seated is not None:  # at another node's table (this node's were checked already)
                reply(seated_elsewhere(seated))
                return
            await self.queue.join(entry)
            self.queued.add(account)
        except Exception as error:
            logs.warning("quick play: could not join the cluster's queue", error=type(error).__name__)
            reply(Fault("server_error", "the cluster is not reachable; try again"))
            return
        reply(Answer())
        logs.info("quick play: joined the cluster's queue", account=entry.ticket.account_id)
        await self.match()
        entries = await self.queue.entries()
        self.queued = set(entries)
        mine = entries.get(entry.ticket.account_id)
        if mine is not None:
            self._tell_waiting(mine, len(entries))

    async def _leave(self, account_id: str) -> None:
        self.told.pop(account_id, None)
        if await self.queue.leave(account_id):
            self.queued.discard(account_id)
            self._tell(account_id, _status("left", await self._count()))

    async def _with_bots(self, account_id: str, reply: Reply) -> None:
        now = time.time()
        groups = await self.queue.take_with_bots(account_id, now, self.settings.bots_after)
        if not groups:
            entry = (await self.queue.entries()).get(account_id)
            if entry is None:
                reply(Fault("bad_state", "you are not waiting in quick play; press quick play first"))
            else:
                t = entry.ticket
                ready = max(t.ready_at, t.joined_at + self.settings.bots_after)
                reply(Fault("bad_state", f"bots can fill the seats in {ready - now:.0f} s"))
            return
        reply(Answer())
        for group in groups:
            self._place(group)

    async def _count(self) -> int:
        return int(await self.queue.redis.hlen(self.queue.key))

    def _place(self, group: Group) -> None:
        """Seat the group here, or send it to the node where most of its players are connected."""
        for w in group.people:
            self.told.pop(w.account_id, None)
            self.queued.discard(w.account_id)
        home = group.home(self.node_id, frozenset(self.live()))
        logs.info("quick play: a group formed", players=len(group.people), node=home, bots=group.bots)
        if home == self.node_id:
            self._open(group)
            return
        people = [QuickPerson(account=w.account_id, nickname=w.nickname, node=w.node) for w in group.people]
        p = group.preferences
        self.bus.send(
            home,
            QuickGroup(
                people=people,
                turn_seconds=p.turn_seconds,
                games=p.games,
                bots=group.bots,
                waiting=group.waiting,
            ),
        )

    def _open(self, group: Group) -> None:
        """Read the players' cards (what their seats show), then seat them at a new table here."""
        accounts = [w.account_id for w in group.people]
        window = self.settings.escape_window
        store = self.hub.store

        def cards() -> list[PlayerCard]:
            return [store.player_card(a, window) for a in accounts]

        def read(found: list[PlayerCard] | BaseException) -> None:
            known = found if not isinstance(found, BaseException) else [None] * len(accounts)
            people = [(w.account_id, w.nickname, c) for w, c in zip(group.people, known, strict=True)]
            self.hub.quick.open_group(
                people, group.preferences, group.bots, lambda t, s: self._seated(group, t, s)
            )

        self.hub.services.read(cards, read)

    def _seated(self, group: Group, table_id: str, seats: dict[str, int]) -> None:
        """Tell each player where they sit: here, or through the node they are connected to."""
        elsewhere: dict[str, dict[str, int]] = {}
        for w in group.people:
            seat = seats.get(w.account_id)
            if seat is None:
                continue
            if w.node == self.node_id or w.node not in set(self.live()):
                self._tell(w.account_id, _seated(table_id, seat, group.waiting))
            else:
                elsewhere.setdefault(w.node, {})[w.account_id] = seat
        for node, mine in elsewhere.items():
            self.bus.send(
                node, QuickSeated(table=table_id, node=self.node_id, seats=mine, waiting=group.waiting)
            )

    def _tell_waiting(self, entry: Entry, count: int) -> None:
        t, now = entry.ticket, time.time()
        self.told[t.account_id] = count
        bots_in = max(0.0, max(t.ready_at, t.joined_at + self.settings.bots_after) - now)
        delay = max(0.0, t.ready_at - t.joined_at)
        frame = QueueStatus(
            type="queue",
            status="waiting",
            waiting=count,
            waited=round(now - t.joined_at, 3),
            bots_in=round(bots_in, 3),
            delay=delay,
            escapes=entry.escapes,
            reason="escapes" if delay > 0 else None,
            turn_seconds=t.preferences.turn_seconds,
            games=t.preferences.games,
            table=None,
            seat=None,
        ).model_dump_json()
        self._tell(t.account_id, frame)

    def _tell(self, account: str, frame: str) -> None:
        for client in list(self.hub.directory.connections(account)):
            client.send(frame)


def _status(
    status: Literal["seated", "left"], waiting: int, table: str | None = None, seat: int | None = None
) -> str:
    return QueueStatus(
        type="queue",
        status=status,
        waiting=waiting,
        waited=0.0,
        bots_in=None,
        delay=0.0,
        escapes=0,
        reason=None,
        turn_seconds=None,
        games=None,
        table=table,
        seat=seat,
    ).model_dump_json()


def _seated(table: str, seat: int, waiting: int) -> str:
    return _status("seated", waiting, table, seat)
