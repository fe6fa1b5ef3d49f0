"""The hub: it assembles one server's parts and routes each client request to its handler through the
registry (:mod:`niugui.server.handlers`). The parts have a job each: the directory of tables and
connections (:mod:`.directory`), tables from the store (:mod:`.restore`), new tables
(:mod:`.creation`), quick play (:mod:`.quick_tables`); the tables do the rest (:mod:`.tables`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

from . import gcpolicy, logs
from .club_rooms import ClubRooms
from .clubs_store import ClubRow, ClubStore, Role
from .config import Config
from .creation import TableFactory
from .directory import Directory
from .dispatch import Registry
from .events.kinds import event_kinds
from .events.seating import EventSeats
from .events.swiss_rounds import SwissRounds
from .handlers import ROUTES
from .handlers.lobby import new_table
from .lobby import Lobby
from .metrics import Metrics
from .protocol import Request, SeatRef, TableSettings, TableSummary
from .quick_tables import QuickTables
from .restore import TableLoader
from .store import Store
from .tables import Client, ExecutorBots, Fault, Reader, Reply, Sent, Services, Table
from .writer import EventWriter, LoopWriter, Writer

T = TypeVar("T")


class Cluster(Protocol):
    """The hooks of a cluster node (niugui/server/cluster/node.py); None in one process."""

    def take(self, client: Client, message: Request, reply: Reply) -> bool:
        """True when the request is for a table of another node (the node forwards it)."""

    def drops(self, table: Table) -> bool:
        """After a failed write: True when the node lost the table (and dropped it)."""

    def lobby(self) -> list[TableSummary]:
        """The other nodes' public tables."""

    def seats(self, account_id: str) -> list[SeatRef]:
        """The seats the account holds at other nodes' tables."""

    def connect(self, client: Client, bot_username: str | None) -> None: ...

    def disconnect(self, client: Client) -> None: ...


def event_writer(store: Store, loop: asyncio.AbstractEventLoop, metrics: Metrics) -> EventWriter:
    """SQLite's commits on the loop (they sync nothing and never wait for a lock); anything else's,
    such as PostgreSQL's network round trips, in a thread (:mod:`niugui.server.writer`)."""
    if store.engine.dialect.name == "sqlite":
        return LoopWriter(store, loop, metrics.locked_retries)
    return Writer(store, loop, metrics.locked_retries)


class Hub:
    """One server's tables and connections, and the routing of requests to their handlers."""

    def __init__(
        self,
        store: Store,
        config: Config,
        metrics: Metrics,
        services: Services | None = None,
        routes: Registry = ROUTES,
    ) -> None:
        """``services``: by default the store's writer (:func:`event_writer`), the running event
        loop's timers and thread pool. ``routes``: the messages understood, and their handlers."""
        self.store, self.config, self.metrics, self.routes = store, config, metrics, routes
        if services is None:
            loop = asyncio.get_running_loop()
            writer = event_writer(store, loop, metrics)
            services = Services(
                writer, loop, ExecutorBots(loop), older=stored_events(store), read=executor_reader(loop)
            )
        self.services = services
        self._directory = Directory()
        services.blocks = self._directory.blocks
        self.loader = TableLoader(store, config, metrics, services, self._directory)
        self._factory = TableFactory(self._directory, self.loader, metrics)
        self._quick = QuickTables(config, store, services, self._directory, self._factory)
        limits = config.limits
        self._listing = Lobby(
            lambda: [t.model_dump() for t in self.lobby()], limits.lobby_seconds, limits.lobby_page
        )
        self._cluster: Cluster | None = None
        self._club_rooms = ClubRooms(self._directory, self._record_room, limits.club_rooms)
        kinds = event_kinds(config.community)
        self._events = EventSeats(store, self._directory, self._factory, services, kinds)
        turn = float(config.community.event_turn_seconds)
        self._swiss = SwissRounds(store, self._directory, self._factory, services, turn)
        self.loader.outfit = self._events.outfit  # a board's dealer and bots after a restart (issue 30)

    # ---- the parts (what handlers use: dispatch.Desk) ---------------------------------------------

    @property
    def directory(self) -> Directory:
        return self._directory

    @property
    def factory(self) -> TableFactory:
        return self._factory

    @property
    def quick(self) -> QuickTables:
        return self._quick

    @property
    def listing(self) -> Lobby:
        """The lobby's pages (``list_tables`` and ``GET /api/tables``), each shared for a moment."""
        return self._listing

    @property
    def clustered(self) -> bool:
        return self._cluster is not None

    @property
    def club_rooms(self) -> ClubRooms:
        """New clubs' rooms (issue 29): who may create one, with which settings."""
        return self._club_rooms

    @property
    def events(self) -> EventSeats:
        """Entrants seated at their events' tables (issue 30)."""
        return self._events

    @property
    def swiss(self) -> SwissRounds:
        """The Swiss tournaments this server runs (issue 30): their rounds' tables."""
        return self._swiss

    def _record_room(self, table_id: str, club: str) -> None:
        """Store that ``table_id`` is ``club``'s room, in the thread pool."""

        def stored(outcome: object) -> None:
            if isinstance(outcome, BaseException):
                logs.warning("a club room was not stored", table=table_id, club=club, error=repr(outcome))

        self.services.read(lambda: ClubStore(self.store.engine).add_room(table_id, club), stored)

    def load_clubs(self) -> None:
        """Fill the clubs' roster from the store (at the start, before any request)."""
        self.reload_clubs(ClubStore(self.store.engine).every_club())

    def reload_clubs(self, every: list[tuple[ClubRow, dict[str, Role]]]) -> None:
        """The clubs' roster replaced by ``every`` club read from the store (on the event loop); those
        no longer members leave the rooms of this node (another node's route removed them)."""
        gone = self._directory.roster.load((club.id, club.preset, dict(roles)) for club, roles in every)
        for club, account in sorted(gone):
            self.left_club(club, account)

    def left_club(self, club: str, account_id: str) -> None:
        """``account_id`` is no longer a member of ``club``: its seats at the club's rooms held here
        are freed (during a game, when it is over; issue 29). Its connections may go on watching a
        room they follow already; a new ``watch`` or ``sit`` is refused (visibility.py)."""
        for table in self._directory.club_rooms(club):
            if table.state.seat_of(account_id) is not None:
                table.expel(account_id)

    async def follow_clubs(self, seconds: float) -> None:
        """On a cluster node: read the clubs again every ``seconds`` (another node's routes changed
        them); cancelled at shutdown."""
        store = ClubStore(self.store.engine)
        roster = self._directory.roster
        while True:
            await asyncio.sleep(seconds)
            try:
                seen = roster.changes
                every = await asyncio.to_thread(store.every_club)
                if roster.changes == seen:  # else a join or removal made here meanwhile: the read is stale
                    self.reload_clubs(every)
            except Exception:
                logs.exception("reading the clubs failed; trying again later")

    @property
    def tables(self) -> dict[str, Table]:
        """The tables in memory by id (read only: the directory changes it)."""
        return self._directory.tables

    @property
    def quarantined(self) -> dict[str, str]:
        return self._directory.quarantined

    @property
    def cluster(self) -> Cluster | None:
        return self._cluster

    def join_cluster(self, cluster: Cluster) -> None:
        """Become a node of a cluster: requests for other nodes' tables go through ``cluster``."""
        self._cluster = cluster
        self.loader.drops = cluster.drops
        self._events.elsewhere = self.handle  # an entrant's board may be at another node's table

    # ---- startup and shutdown ---------------------------------------------------------------------

    def restore(self) -> None:
        """Rebuild every unfinished table from its stored events; the tables go on from there."""
        self.loader.restore_all()
        gcpolicy.apply()  # the server's garbage-collector settings, once it has started

    def close(self) -> None:
        """Stop every table (requests still waiting are refused) and store what waits to be stored."""
        for table in self.tables.values():
            table.close()
        self.services.writer.close()

    # ---- connections -----------------------------------------------------------------------------

    def connect(self, client: Client, bot_username: str | None = None) -> list[SeatRef]:
        """A new connection (a bot account's: ``bot_username``): the tables where its account holds
        a seat."""
        self._directory.connect(client, bot_username)
        if self._cluster is not None:
            self._cluster.connect(client, bot_username)
        return [SeatRef(table=s["table"], seat=s["seat"]) for s in self.seats_of(client.account_id)]

    def seats_of(self, account_id: str) -> list[dict[str, Any]]:
        """Where an account holds a seat: table id, seat, and (for tables of this node) the table's
        name and status."""
        found = self._directory.seats_of(account_id)
        if self._cluster is not None:
            elsewhere = self._cluster.seats(account_id)
            found += [{"table": s.table, "seat": s.seat, "name": "", "status": None} for s in elsewhere]
        return found

    def disconnect(self, client: Client) -> None:
        if self._directory.disconnect(client):  # the account's last connection: out of the queue
            self._quick.leave(client.account_id)
        if self._cluster is not None:
            self._cluster.disconnect(client)

    # ---- requests --------------------------------------------------------------------------------

    def handle(self, client: Client, message: Request, reply: Reply) -> None:
        """Carry out a request; ``reply`` is called once, now or when its events are stored."""
        try:
            if self._cluster is not None and self._cluster.take(client, message, reply):
                return
            self.routes.dispatch(self, client, message, reply)
        except Fault as fault:
            reply(fault)

    def create_table(
        self, client: Client, settings: TableSettings, reply: Reply, table_id: str | None = None
    ) -> Table:
        """A new table; the creator is subscribed to it (not seated). Ack data: the table's summary.
        Made as ``create_table`` makes it (a club's room checked: one path); a :class:`Fault` when
        it may not be."""
        return new_table(self, client, settings, reply, table_id)

    def lobby(self, account_id: str | None = None) -> list[TableSummary]:
        """The public tables not finished (of every node of a cluster)."""
        own = self.own_lobby(account_id)
        return own if self._cluster is None else own + self._cluster.lobby()

    def own_lobby(self, account_id: str | None = None) -> list[TableSummary]:
        return self._directory.public(account_id)

    # ---- hooks of the transport's fair-use limits and expiry (niugui/server/expiry.py) --------------

    def open_tables(self) -> Iterator[tuple[str, str, str]]:
        """(table id, creator, bot level) of every table in memory that is not finished."""
        return self._directory.open_tables()

    def activity(self) -> Iterator[tuple[str, str, float, int]]:
        """(table id, status, time of its last event, connections subscribed) of every table."""
        return self._directory.activity()

    def close_abandoned(self, table_id: str) -> None:
        """End an abandoned table (not in play): it is ``finished``, so not rebuilt at a restart."""
        table = self.tables[table_id]
        if table.state.status not in ("waiting", "between"):
            raise Fault("bad_state", f"the table is {table.state.status}")
        table.finish()

    def forget(self, table_id: str) -> None:
        """Drop a table from memory (its events, games and ledger stay in the store)."""
        table = self._directory.remove(table_id)
        if table is not None:
            table.close()
            self.metrics.tables.set(len(self.tables))


def executor_reader(loop: asyncio.AbstractEventLoop) -> Reader:
    """A :class:`Reader` on the loop's default thread pool: the result comes back on ``loop``."""

    def read(job: Callable[[], T], then: Callable[[T | BaseException], None], /) -> None:
        def finished(future: asyncio.Future[T]) -> None:
            if future.cancelled():  # the loop is shutting down: nobody waits any more
                return
            error = future.exception()
            try:
                then(future.result() if error is None else error)
            except Exception:
                logs.exception("a read's continuation failed")

        loop.run_in_executor(None, job).add_done_callback(finished)

    return read


def stored_events(store: Store) -> Callable[[str, int], list[Sent]]:
    """Reads a table's stored events after a seq, as they were sent (for reconnects)."""

    def older(table_id: str, after: int) -> list[Sent]:
        return [(e.seq, e.created_at, e.payload) for e in store.events(table_id, after)]

    return older
