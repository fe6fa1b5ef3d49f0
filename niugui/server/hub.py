"""The hub: every table in memory (rebuilt from the store at startup), who is connected, and the routing
of each client request to its table. The tables do the rest (:mod:`niugui.server.tables`)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from . import gcpolicy, logs
from .config import Config
from .matchmaking import Preferences
from .metrics import Metrics
from .protocol import (
    EVENT_ADAPTER,
    Autoplay,
    Chat,
    CreateTable,
    EvDeal,
    FillBots,
    FreeSeat,
    Invitation,
    Invite,
    Leave,
    LeaveQueue,
    ListTables,
    LobbyData,
    Message,
    Pass,
    Ping,
    Play,
    QueueBots,
    QuickPlay,
    Ready,
    Rematch,
    SeatRef,
    Sit,
    Stand,
    TableData,
    TableSettings,
    TableSummary,
    UpdateSettings,
    Watch,
)
from .quickplay import Matchmaker, Person, Seated
from .rematch import Rematches
from .store import PlayerCard, Store
from .tables import (
    Answer,
    Client,
    Deal,
    ExecutorBots,
    Fault,
    Reader,
    Reply,
    Sent,
    Services,
    Stored,
    Table,
    TableState,
    is_bot_account,
    reduce,
)
from .writer import EventWriter, LoopWriter, Writer

QUICK_PLAY = "quick-play"
"""The creator of quick-play tables: no account (nobody may change their settings or fill them)."""
MAX_OPEN_TABLES = 20
"""Unfinished tables one account may have created (so nobody can fill the server with tables)."""
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
T = TypeVar("T")


class Cluster(Protocol):
    """The hooks of a cluster node (niugui/server/cluster/node.py); None in one process."""

    def take(self, client: Client, message: Message, reply: Reply) -> bool:
        """True when the request is for a table of another node (the node forwards it)."""

    def drops(self, table: Table) -> bool:
        """After a failed write: True when the node lost the table (and dropped it)."""

    def lobby(self) -> list[TableSummary]:
        """The other nodes' public tables."""

    def seats(self, account_id: str) -> list[SeatRef]:
        """The seats the account holds at other nodes' tables."""

    def disconnect(self, client: Client) -> None: ...


def _short_id(length: int) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def event_writer(store: Store, loop: asyncio.AbstractEventLoop, metrics: Metrics) -> EventWriter:
    """SQLite's commits on the loop (they sync nothing and never wait for a lock); anything else's,
    such as PostgreSQL's network round trips, in a thread (:mod:`niugui.server.writer`)."""
    if store.engine.dialect.name == "sqlite":
        return LoopWriter(store, loop, metrics.locked_retries)
    return Writer(store, loop, metrics.locked_retries)


class Hub:
    def __init__(
        self, store: Store, config: Config, metrics: Metrics, services: Services | None = None
    ) -> None:
        """``services``: by default the store's writer (:func:`event_writer`), the running event
        loop's timers and thread pool."""
        self.store = store
        self.config = config
        self.metrics = metrics
        if services is None:
            loop = asyncio.get_running_loop()
            writer = event_writer(store, loop, metrics)
            services = Services(
                writer, loop, ExecutorBots(loop), older=stored_events(store), read=executor_reader(loop)
            )
        self.services = services
        self.tables: dict[str, Table] = {}
        self.quarantined: dict[str, str] = {}
        """Tables whose stored events did not replay at the start: id → the error's type."""
        self.clients: dict[Client, set[str]] = {}  # connection -> tables it is subscribed to
        self.by_account: dict[str, set[Client]] = {}
        self.cards: dict[str, PlayerCard] = {}
        """What seats show of each connected account (rating, escape rate), read when it connected."""
        self.quick = Matchmaker(config.community, self._connections, self._open_quick_table, _later)
        self.rematches = Rematches(
            QUICK_PLAY, self.tables, self._connections, self.cards.get, self._check_not_playing, self.quick,
            self._open_quick_table,
        )  # 再来一局 after quick play (rematch.py)
        self.bots: dict[str, dict[Client, None]] = {}
        """The connections of bot accounts, by username in lower case (whom ``invite`` reaches)."""
        self._bot_names: dict[Client, str] = {}
        self._joining: dict[str, object] = {}
        """Accounts whose quick play waits for their player card to be read: account → that request."""
        self.cluster: Cluster | None = None

    # ---- startup and shutdown ---------------------------------------------------------------------------

    def restore(self) -> None:
        """Rebuild every unfinished table from its stored events; the tables go on from there."""
        for table_id in self.store.table_ids():
            try:
                table = self._rebuild(table_id)
            except Exception as error:  # a stored event that does not replay: this table only
                self.quarantine(table_id, error)
                continue
            self.tables[table_id] = table
            table.resume()
        self.metrics.tables.set(len(self.tables))
        logs.info("tables restored", tables=len(self.tables), quarantined=len(self.quarantined))
        gcpolicy.apply()  # the server's garbage-collector settings, once it has started

    def quarantine(self, table_id: str, error: Exception) -> None:
        """Keep a table whose stored events do not replay out of play — logged, counted in
        ``/metrics`` and reported by ``/healthz`` — so that every other table still starts. Its
        events stay in the store, untouched, for the operator to look at."""
        reason = type(error).__name__  # not its text: a validation error quotes the stored payload
        self.quarantined[table_id] = reason
        self.metrics.quarantined.set(len(self.quarantined))
        logs.warning("table quarantined: its stored events do not replay", table=table_id, reason=reason)

    def close(self) -> None:
        """Stop every table (requests still waiting are refused) and store what waits to be stored."""
        for table in self.tables.values():
            table.close()
        self.services.writer.close()

    def _rebuild(self, table_id: str) -> Table:
        rebuilt = self._rebuilt(table_id)
        assert rebuilt is not None
        return self._with_recent(*rebuilt)

    def _rebuilt(self, table_id: str) -> tuple[TableState, list[Sent]] | None:
        """A table's state replayed from its stored events, and its latest events (for reconnects);
        None if its creation was never stored. Only reads the store and builds new objects: it may
        run away from the event loop."""
        row = self.store.table_row(table_id)
        if row is None:
            return None
        deals = {
            g.id: Deal(g.game_no, g.first_drawer, tuple(g.deck), g.salt, g.commitment, g.meta)
            for g in self.store.games_of(table_id)
        }
        state = TableState(table_id, creator=row["creator"], code=row["code"])
        events = self.store.events(table_id)
        for stored in events:
            event = EVENT_ADAPTER.validate_json(stored.payload)
            deal = deals[event.game_id] if isinstance(event, EvDeal) else None
            reduce(state, Stored(stored.seq, stored.created_at, event, deal))
        return state, [(e.seq, e.created_at, e.payload) for e in events[-self.config.replay_limit :]]

    def _with_recent(self, state: TableState, recent: list[Sent]) -> Table:
        table = self._new_table(state)
        table.fanout.recent.extend(recent)
        return table

    def _new_table(self, state: TableState) -> Table:
        return Table(state, self.services, self.config, self.metrics, on_failure=self._reload)

    def _reload(self, broken: Table) -> None:
        """After a failed write: replace the table by one rebuilt from what was stored (read away
        from the event loop; meanwhile the closed table refuses requests), and go on (finishing a
        game whose end was not stored) — unless it failed again straight away."""
        broken.close()
        if self.tables.get(broken.id) is not broken:
            return
        if self.cluster is not None and self.cluster.drops(broken):
            return
        self.services.read(lambda: self._rebuilt(broken.id), lambda rebuilt: self._reloaded(broken, rebuilt))

    def _reloaded(self, broken: Table, rebuilt: tuple[TableState, list[Sent]] | BaseException | None) -> None:
        if self.tables.get(broken.id) is not broken:  # dropped (or replaced) meanwhile
            return
        if isinstance(rebuilt, BaseException):
            logs.failure("could not reload the table", rebuilt, table=broken.id)
            return
        if rebuilt is None:  # its creation was never stored
            del self.tables[broken.id]
            return
        table = self._with_recent(*rebuilt)
        table.fanout.subscribers = broken.fanout.subscribers
        table.fresh = True
        self.tables[broken.id] = table
        state = table.state
        for client in list(table.fanout.subscribers):
            client.send(table.fanout.snapshot(state, state.seat_of(client.account_id)))
        if not broken.fresh:
            table.carry_on()

    # ---- connections -----------------------------------------------------------------------------

    def connect(self, client: Client, bot_username: str | None = None) -> list[SeatRef]:
        """A new connection (a bot account's: ``bot_username``): the tables where its account holds
        a seat."""
        self.clients[client] = set()
        self.by_account.setdefault(client.account_id, set()).add(client)
        if bot_username is not None:
            name = self._bot_names[client] = bot_username.lower()
            self.bots.setdefault(name, {})[client] = None
        return [SeatRef(table=s["table"], seat=s["seat"]) for s in self.seats_of(client.account_id)]

    def seats_of(self, account_id: str) -> list[dict[str, Any]]:
        """Where an account holds a seat: table id, seat, and (for tables of this node) the table's
        name and status."""
        found: list[dict[str, Any]] = []
        for table in self.tables.values():
            seat = table.state.seat_of(account_id)
            if seat is not None:
                state = table.state
                found.append(
                    {"table": table.id, "seat": seat, "name": state.settings.name, "status": state.status}
                )
        if self.cluster is not None:
            elsewhere = self.cluster.seats(account_id)
            found += [{"table": s.table, "seat": s.seat, "name": "", "status": None} for s in elsewhere]
        return found

    def disconnect(self, client: Client) -> None:
        mine = self.by_account.get(client.account_id)
        if mine is not None:
            mine.discard(client)
            if not mine:  # the account's last connection: out of the queue (never seated unseen)
                del self.by_account[client.account_id]
                self.cards.pop(client.account_id, None)
                self._joining.pop(client.account_id, None)
                self.quick.leave(client.account_id)
        if self.cluster is not None:
            self.cluster.disconnect(client)
        name = self._bot_names.pop(client, None)
        if name is not None:
            connections = self.bots[name]
            connections.pop(client, None)
            if not connections:
                del self.bots[name]
        for table_id in self.clients.pop(client, set()):
            table = self.tables.get(table_id)
            if table is not None:
                table.unsubscribe(client)

    # ---- requests --------------------------------------------------------------------------------

    def handle(self, client: Client, message: Message, reply: Reply) -> None:
        """Carry out a request; ``reply`` is called once, now or when its events are stored."""
        try:
            if self.cluster is not None and self.cluster.take(client, message, reply):
                return
            self._route(client, message, reply)
        except Fault as fault:
            reply(fault)

    def _route(self, client: Client, message: Message, reply: Reply) -> None:
        if isinstance(message, Ping):
            reply(Answer())
            return
        if isinstance(message, ListTables):
            reply(Answer(data=LobbyData(tables=self.lobby(client.account_id))))
            return
        if isinstance(message, CreateTable):
            self.create_table(client, message.settings, reply)
            return
        if isinstance(message, QuickPlay | LeaveQueue | QueueBots):
            self._queue(client, message, reply)
            return
        table_ref: str = getattr(message, "table")  # noqa: B009 - every other message names a table
        # Only watch and sit, which check the code, may name a table by its join code; to anyone else
        # a private table answers every other request as if it did not exist (no oracle for codes).
        table = self._table(table_ref, by_code=isinstance(message, Watch | Sit))
        if not isinstance(message, Watch | Sit) and not self._member(client, table):
            raise Fault("not_found", f"no table {table_ref!r}, or not with that join code")
        # a table named by its join code alone was named with its code
        named = table_ref if table.state.code is not None and table_ref == table.state.code else None
        if isinstance(message, Play):  # the most frequent first
            table.act(client, message.cards, reply)
        elif isinstance(message, Pass):
            table.act(client, None, reply)
        elif isinstance(message, Watch):
            self._check_code(client, table, message.code or named)
            self.clients.setdefault(client, set()).add(table.id)
            table.subscribe(client, message.last_seq, reply)
        elif isinstance(message, Sit):
            self._check_code(client, table, message.code or named)
            self.clients.setdefault(client, set()).add(table.id)
            table.sit(client, message.seat, reply, self.cards.get(client.account_id))
        elif isinstance(message, Stand):
            table.stand(client, reply)
        elif isinstance(message, Leave):
            self.clients.get(client, set()).discard(table.id)
            table.leave(client, reply)
        elif isinstance(message, Ready):
            table.ready(client, reply)
        elif isinstance(message, Autoplay):
            table.set_autoplay(client, message.on, reply)
        elif isinstance(message, FillBots):
            table.fill_bots(client, reply)
        elif isinstance(message, FreeSeat):
            table.free_seat(client, message.seat, reply)
        elif isinstance(message, UpdateSettings):
            table.update_settings(client, message.settings, reply)
        elif isinstance(message, Invite):
            self.invite(client, table, message, reply)
        elif isinstance(message, Chat):
            table.chat(client, message.phrase, reply)
        elif isinstance(message, Rematch):
            self.rematches.ask(client, table)
            reply(Answer())
        else:  # pragma: no cover - the protocol models and this list change together
            raise Fault("unknown_type", f"no handler for {type(message).__name__}")

    # ---- quick play (quickplay.py) ----------------------------------------------------------------

    def _queue(self, client: Client, message: QuickPlay | LeaveQueue | QueueBots, reply: Reply) -> None:
        account = client.account_id
        if self.cluster is not None and isinstance(message, QuickPlay):
            # its tables would need the cluster's leases, and one queue across nodes: not built yet
            raise Fault("bad_state", "quick play is not available on a cluster of servers yet")
        if isinstance(message, QuickPlay) and is_bot_account(client):
            raise Fault("forbidden", "bot accounts do not join quick play; a table's creator invites them")
        if isinstance(message, LeaveQueue):
            self._joining.pop(account, None)  # a quick play still reading its card joins no more
            reply(Answer())
            self.quick.leave(account)
            return
        if isinstance(message, QueueBots):
            self.quick.with_bots(account)
            reply(Answer())
            return
        self._check_not_playing(account)
        # read now (a quick indexed query, away from the event loop): the escapes counted for the
        # fair-play delay must be current
        request = self._joining[account] = object()
        window = self.config.community.escape_window

        def join(card: PlayerCard | BaseException) -> None:
            latest = self._joining.get(account)
            if latest is not request:
                if latest is not None:  # pressed again meanwhile: the later request joins
                    reply(Answer())
                else:  # left the queue, or disconnected, meanwhile
                    reply(Fault("bad_state", "you left quick play before this request joined it"))
                return
            del self._joining[account]
            if isinstance(card, BaseException):
                reply(card)
                return
            try:
                self._check_not_playing(account)  # sat down somewhere meanwhile
            except Fault as fault:
                reply(fault)
                return
            self.cards[account] = card
            reply(Answer())
            self.quick.join(client, Preferences(message.turn_seconds, message.games), card)

        self.services.read(lambda: self.store.player_card(account, window), join)

    def _check_not_playing(self, account: str) -> None:
        playing = next(
            (
                t.id
                for t in self.tables.values()
                if t.state.status == "playing" and t.state.seat_of(account) is not None
            ),
            None,
        )
        if playing is not None:
            raise Fault("already_seated", f"you are playing at table {playing}; finish that game first")

    def _connections(self, account_id: str) -> set[Client]:
        return self.by_account.get(account_id, set())

    def _open_quick_table(
        self, people: Sequence[Person], preferences: Preferences, bots: bool, seated: Seated
    ) -> None:
        """A new rated table for a quick-play group: its players subscribed and seated (bots in the
        seats left when they chose bots); the game starts as soon as the seats are stored."""
        community = self.config.community
        settings = TableSettings(
            name="快速开始",
            turn_seconds=float(preferences.turn_seconds or community.quick_turn_seconds),
            games=preferences.games or community.quick_games or None,
            rated=True,
        )
        table_id = _short_id(8)
        table = self._new_table(TableState(table_id, creator=QUICK_PLAY, code=None, settings=settings))
        self.tables[table_id] = table
        self.metrics.tables.set(len(self.tables))
        accounts = [account for account, _, _ in people]

        def done_seating(answer: Answer | BaseException) -> None:
            if isinstance(answer, BaseException):
                logs.failure("quick play: could not seat the group", answer, table=table_id)
                return
            seats = {a: s for a in accounts if (s := table.state.seat_of(a)) is not None}
            seated(table_id, seats)

        def created(answer: Answer | BaseException) -> None:
            if isinstance(answer, BaseException):
                logs.failure("quick play: could not create the table", answer, table=table_id)
                return
            for account in accounts:
                for client in list(self._connections(account)):
                    self.clients.setdefault(client, set()).add(table_id)
                    table.subscribe(client, None)
            table.seat_group(people, settings.bot_level if bots else None, done_seating)

        table.create(settings, created)

    def invite(self, client: Client, table: Table, message: Invite, reply: Reply) -> None:
        """Invite a connected bot account to a seat: each of its connections gets an ``invitation``."""
        guests = list(self.bots.get(message.username.lower(), ()))
        if not guests:
            raise Fault("bot_offline", f"no bot account {message.username!r} is connected; start its client")

        def notify(seat: int) -> None:
            state = table.state
            frame = Invitation(
                type="invitation",
                table=table.id,
                seat=seat,
                code=state.code,
                by=client.nickname,
                settings=state.settings,
            ).model_dump_json()
            for guest in guests:
                guest.send(frame)
            logs.info("bot account invited", table=table.id, seat=seat)

        table.invite(client, guests[0].account_id, message.seat, notify, reply)

    def lobby(self, account_id: str | None = None) -> list[TableSummary]:
        """The public tables not finished (of every node of a cluster)."""
        own = self.own_lobby(account_id)
        return own if self.cluster is None else own + self.cluster.lobby()

    def own_lobby(self, account_id: str | None = None) -> list[TableSummary]:
        return [
            t.fanout.summary(t.state, account_id)
            for t in self.tables.values()
            if not t.state.settings.private and t.state.status != "finished"
        ]

    def create_table(
        self, client: Client, settings: TableSettings, reply: Reply, table_id: str | None = None
    ) -> Table:
        """A new table; the creator is subscribed to it (not seated). Ack data: the table's summary."""
        account = client.account_id
        mine = sum(
            1 for t in self.tables.values() if t.state.creator == account and t.state.status != "finished"
        )
        if mine >= MAX_OPEN_TABLES:
            raise Fault("forbidden", f"you already have {mine} open tables; use one of them")
        table_id = table_id or _short_id(8)
        code = _short_id(6) if settings.private else None
        table = self._new_table(TableState(table_id, creator=account, code=code, settings=settings))
        self.tables[table_id] = table
        self.metrics.tables.set(len(self.tables))

        def created(answer: Answer | BaseException) -> None:
            if isinstance(answer, BaseException):
                reply(answer)
                return
            logs.info("table created", table=table_id, private=settings.private)
            self.clients.setdefault(client, set()).add(table_id)
            table.subscribe(client, None, _with_data(reply, lambda: table.summary(account)))

        table.create(settings, created)
        return table

    def _table(self, table_id: str, by_code: bool = False) -> Table:
        table = self.tables.get(table_id)
        if table is None and by_code:  # a private table may be named by its join code ("join by code")
            table = next(
                (t for t in self.tables.values() if t.state.code is not None and t.state.code == table_id),
                None,
            )
        if table is None and table_id in self.quarantined:
            raise Fault("not_found", "this table could not be restored after a restart (its games are kept)")
        if table is None:
            raise Fault("not_found", f"no table {table_id!r}, or not with that join code")
        return table

    def _member(self, client: Client, table: Table) -> bool:
        """Public table, or its creator, a seated player, or a subscriber who gave the code."""
        state = table.state
        return (
            not state.settings.private
            or client.account_id == state.creator
            or state.seat_of(client.account_id) is not None
            or table.id in self.clients.get(client, ())
        )

    def _check_code(self, client: Client, table: Table, code: str | None) -> None:
        state = table.state
        if not state.settings.private or client.account_id == state.creator:
            return
        if state.seat_of(client.account_id) is not None:
            return
        if code is None or not secrets.compare_digest(code, state.code or ""):
            raise Fault("not_found", f"no table {table.id!r}, or not with that join code")

    # ---- hooks of the transport's fair-use limits and expiry (niugui/server/app.py, expiry.py) ---------

    def open_tables(self) -> Iterator[tuple[str, str, str]]:
        """(table id, creator, bot level) of every table in memory that is not finished."""
        for t in self.tables.values():
            if t.state.status != "finished":
                yield t.id, t.state.creator, t.state.settings.bot_level

    def activity(self) -> Iterator[tuple[str, str, float, int]]:
        """(table id, status, time of its last event, connections subscribed) of every table."""
        for t in list(self.tables.values()):
            yield t.id, t.state.status, t.state.time, len(t.fanout.subscribers)

    def close_abandoned(self, table_id: str) -> None:
        """End an abandoned table (not in play): it is ``finished``, so not rebuilt at a restart."""
        table = self.tables[table_id]
        if table.state.status not in ("waiting", "between"):
            raise Fault("bad_state", f"the table is {table.state.status}")
        table.finish()

    def forget(self, table_id: str) -> None:
        """Drop a table from memory (its events, games and ledger stay in the store)."""
        table = self.tables.pop(table_id, None)
        if table is None:
            return
        table.close()
        for client in list(table.fanout.subscribers):
            self.clients.get(client, set()).discard(table_id)
        table.fanout.subscribers.clear()
        self.metrics.tables.set(len(self.tables))


def _later(delay: float, callback: Callable[[], None]) -> asyncio.TimerHandle | None:
    """A timer on the running event loop (none outside one: in-process tests drive time themselves)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop.call_later(delay, callback)


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


def _with_data(reply: Reply, data: Callable[[], TableData]) -> Reply:
    """``reply``, its answer's data replaced by ``data()`` when it succeeds."""

    def answer(outcome: Answer | BaseException) -> None:
        if isinstance(outcome, BaseException):
            reply(outcome)
        else:
            reply(Answer(outcome.seq, data()))

    return answer
