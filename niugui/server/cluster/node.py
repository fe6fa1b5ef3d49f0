"""One node of a cluster: the hub's hooks that make the tables of every node one set.

- **Ownership.** The node owns the tables whose lease it holds (:mod:`.lease`) and writes their
  events with the lease's fencing token (:class:`FencedWriter`); a refused write, or a lease it could
  not renew, and it drops the table at once. Every third of a lease it renews its leases.
- **Failover.** Each node beats (``heartbeat_seconds``) a key that lives ``dead_seconds``, and keeps
  its tables in a Redis set. A node that stops beating is dead: the survivors read its set, and only
  it, and take its tables over without waiting for their leases to run out (each survivor its share
  first, any the rest): a new fencing token raised in the database, then the table rebuilt from its
  stored events, so the dead owner — or a paused one that wakes up — can write nothing after that; the
  timers re-arm from the stored deadlines (the remaining time, not a fresh turn).
- **Forwarding.** A request for a table another node owns goes to that owner over the bus with the
  connection's id; the owner serves it for a :class:`RemoteClient`, whose frames (the per-seat views
  the owner built) and the answer go back to this node, in order, and this node hands them to the
  connection. Each connection's frames are checked by ``seq`` here: a duplicate is dropped, a gap asks
  the owner to replay (so a move of the table to another owner is seamless for the connection).
- **Load.** Each node announces how many tables it owns; new tables go to the least loaded node.
  The lobby is one bounded index in Redis (:mod:`.lobby_index`).
- **Drain.** On SIGTERM the node stores what waits, releases its leases, stops beating and says so:
  the other nodes take its tables over at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from redis.asyncio import BlockingConnectionPool, Redis

from .. import gcpolicy, logs, stacks
from ..creation import short_id
from ..handlers.lobby import create_table
from ..hub import Hub
from ..periodic import every
from ..protocol import (
    AckData,
    CreateTable,
    Leave,
    ListTables,
    LobbyData,
    Ping,
    Prebuilt,
    SeatData,
    SeatRef,
    Sit,
    TableSummary,
    Watch,
)
from ..protocol import Request as ClientRequest
from ..restore import Rebuilt
from ..store import StaleWrite, Write
from ..tables import Answer, Client, Fault, Reply, Table, is_bot_account
from ..tables.fanout import TableFrame
from ..writer import Done, EventWriter
from .bus import (
    Answered,
    Bus,
    Bye,
    CloseRoom,
    Deliver,
    EventSeatedAt,
    Forwarded,
    FrameHead,
    Free,
    Notice,
    Owner,
    QuickGroup,
    QuickSeated,
    Refused,
    RoomClosed,
    SocialChanged,
)
from .features import Features
from .lease import Leases
from .lobby_index import LobbyIndex
from .settings import ClusterSettings

ADOPT_BATCH = 16
"""Tables claimed and read in one database transaction, and rebuilt in one job away from the loop,
at a takeover (one transaction each cost a dozen round trips a table: issue 32)."""
BATCHES_AT_ONCE = 2
"""Batches in flight at once: one waits on the database while the other is rebuilt."""
DRAIN_SECONDS = 30.0
"""The most a node's drain may take (:meth:`Node.stop`); its bus waits at most
:data:`.bus.CLOSE_SECONDS` of it to publish."""
MOVING = "this table is moving to another node; try again in a moment"
"""The words of the refusal ``moving``: the page and the reference bot client send the request again."""


class ClusterMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        r = registry
        self.owned = Gauge("niugui_cluster_tables_owned", "tables whose lease this node holds", registry=r)
        self.nodes = Gauge("niugui_cluster_nodes", "live nodes in the cluster (this one too)", registry=r)
        self.forwarded = Counter(
            "niugui_cluster_forwarded_total", "requests forwarded between nodes", ["direction"], registry=r
        )
        self.renewals = Counter("niugui_cluster_lease_renewals_total", "lease renewal rounds", registry=r)
        self.lost = Counter("niugui_cluster_leases_lost_total", "tables dropped: lease lost", registry=r)
        self.refused = Counter(
            "niugui_cluster_writes_refused_total",
            "event writes refused: this node's lease had expired, or the store saw a newer owner",
            registry=r,
        )
        self.dropped = Counter(
            "niugui_cluster_bus_dropped_total",
            "Redis messages dropped unread: unsealed, a bad MAC, stale or replayed (bus.py, seal.py)",
            ["reason"],
            registry=r,
        )
        self.takeovers = Counter(
            "niugui_cluster_takeovers_total",
            "tables adopted from another node (dead or draining)",
            registry=r,
        )
        self.relayed = Counter(
            "niugui_cluster_frames_relayed_total",
            "frames another node built for this node's connections, received over the bus",
            registry=r,
        )
        self.remote = Gauge(
            "niugui_cluster_remote_clients",
            "other nodes' connections this node serves its tables to over the bus (with table affinity "
            "their clients connect here instead)",
            registry=r,
        )
        self.rtt = Histogram(
            "niugui_cluster_redis_rtt_seconds",
            "Redis round trip (a lease renewal)",
            buckets=(0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.25, 1.0),
            registry=r,
        )


class RemoteClient:
    """A connection of another node, as this node's tables see it: its frames go over the bus."""

    __slots__ = ("_bus", "account_id", "address", "bot", "connection", "nickname", "node_id")

    def __init__(
        self,
        bus: Bus,
        node_id: str,
        connection: str,
        account_id: str,
        nickname: str,
        bot: bool = False,
        address: str = "",
    ) -> None:
        self._bus = bus
        self.node_id = node_id
        self.connection = connection
        self.account_id = account_id
        self.nickname = nickname
        self.bot = bot
        """A bot account's connection (its seat is labelled ``bot_account``)."""
        self.address = address
        """The address key its own node counts it against (carried by :class:`Forwarded`)."""

    def send(self, message: str) -> None:
        if isinstance(message, TableFrame):
            head = FrameHead(
                conn=self.connection, table=message.table, seq=message.seq, snapshot=message.snapshot
            )
        else:
            head = FrameHead(conn=self.connection)
        self._bus.frame(self.node_id, head, message)


class FencedWriter:
    """The hub's event writer, each write stamped with the table's fencing token; a table this node
    does not hold (any more) is refused here, and a write the store refused drops the lease."""

    def __init__(self, inner: EventWriter, node: Node) -> None:
        self.inner = inner
        self.node = node

    def submit(self, writes: Sequence[Write], done: Done) -> None:
        first = writes[0] if writes else None
        if first is not None and first.creator is not None and first.table_id not in self.node.fences:
            # a table made on this node by another path than create_table (quick play): lease it first
            asyncio.get_running_loop().create_task(self._lease_new(writes, done))
            return
        now = time.monotonic()
        for w in writes:
            held = self.node.fences.get(w.table_id)
            if held is None or held[1] < now:
                self.node.fences.pop(w.table_id, None)
                self.node.metrics.refused.inc()
                logs.warning("a write refused: the lease had expired", table=w.table_id)
                done(StaleWrite(f"this node does not hold table {w.table_id} (any more)"))
                return
            w.fence = held[0]

        def stored(error: BaseException | None) -> None:
            if isinstance(error, StaleWrite):
                self.node.metrics.refused.inc()
                logs.warning("a write refused by the store: a newer owner", table=writes[0].table_id)
                for w in writes:
                    self.node.fences.pop(w.table_id, None)
            done(error)

        self.inner.submit(writes, stored)

    async def _lease_new(self, writes: Sequence[Write], done: Done) -> None:
        table_id = writes[0].table_id
        try:
            token = await self.node.leases.acquire(table_id)
        except Exception as error:
            done(error)
            return
        if token is None:
            done(StaleWrite(f"table {table_id} is another node's"))
            return
        self.node.fences[table_id] = (token, time.monotonic() + self.node.settings.lease_seconds)
        self.submit(writes, done)

    def close(self) -> None:
        self.inner.close()


@dataclass
class Follow:
    """This node's connections that receive a table another node owns, and the last seq each got."""

    owner: str | None = None
    clients: dict[Client, int | None] = field(default_factory=dict)
    codes: dict[Client, str] = field(default_factory=dict)
    """The join code each connection gave (a private table's spectator needs it again at a new owner)."""
    asking: set[Client] = field(default_factory=set)
    """Connections for which a replay was asked and not answered yet."""


@dataclass
class Pending:
    reply: Reply
    timer: asyncio.TimerHandle
    client: Client
    message: ClientRequest
    table: str | None
    node: str


class Node:
    def __init__(self, hub: Hub, settings: ClusterSettings) -> None:
        self.hub = hub
        self.settings = settings
        self.node_id = settings.node_id
        self.prefix = settings.prefix
        pool = BlockingConnectionPool.from_url(  # a burst of requests waits for a connection, never fails
            settings.redis_url,
            max_connections=32,
            timeout=None,
            socket_timeout=max(2.0, settings.lease_seconds),
        )
        self.redis = Redis(connection_pool=pool)
        self._pool = pool
        self.leases = Leases(self.redis, self.prefix, self.node_id, settings.lease_seconds)
        self.metrics = ClusterMetrics(hub.metrics.registry)
        self.bus = Bus(
            self.redis,
            self.prefix,
            self.node_id,
            self._frame,
            self._notice,
            secret=settings.secret,
            on_dropped=lambda reason: self.metrics.dropped.labels(reason).inc(),
        )
        self.fences: dict[str, tuple[int, float]] = {}
        """Tables this node owns: their fencing token, and until when (monotonic) the lease holds."""
        self.follows: dict[str, Follow] = {}
        self.proxies: dict[tuple[str, str], RemoteClient] = {}
        self.metrics.remote.set_function(lambda: len(self.proxies))
        self.pending: dict[str, Pending] = {}
        self.loads: dict[str, int] = {}
        """Live nodes → tables each owns (as they last announced it)."""
        self.index = LobbyIndex(self.redis, self.prefix, self.node_id, hub.config.limits.lobby_page)
        """The cluster's lobby (one bounded index in Redis) and the page of it this node last read."""
        self._ids: dict[Client, str] = {}
        self._local: dict[str, Client] = {}
        self._asked: dict[Client, set[str]] = {}  # connection -> nodes it had requests forwarded to
        self._adopting: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._period = settings.lease_seconds / 3
        self._taking: set[str] = set()
        """Silent nodes whose tables this node is taking over right now."""
        self._dead_beats: dict[str, int] = {}
        """Silent nodes → heartbeats for which this node has seen their set not empty yet."""
        self._stopping = False
        hub.join_cluster(self)
        hub.services.writer = FencedWriter(hub.services.writer, self)
        self.features = Features(
            hub, self.bus, self.redis, self.prefix, lambda: self.loads, self.follow_remote
        )
        """Quick play, presence and caps across nodes (issue 32)."""

    # ---- start and stop -----------------------------------------------------------------------------

    async def start(self) -> None:
        await self.redis.ping()
        await self.bus.start()
        await self._heartbeat()  # beating before it takes a lease: nobody takes its tables from now on
        await self._adopt_all(await self.leases.members(self.node_id), self.node_id)  # after a restart
        await self._adopt_orphans_once()
        self._tasks = [
            asyncio.create_task(loop()) for loop in (self._renewing, self._beating, self._lobbying)
        ]
        await self.features.start()
        gcpolicy.apply()
        logs.info("cluster node started", node=self.node_id, nodes=len(self.loads))

    async def stop(self) -> None:
        """Drain (:meth:`_drain`) for at most :data:`DRAIN_SECONDS`: a node told to stop stops. One
        whose drain runs past it logs where each task waits (:mod:`..stacks`) and goes on stopping;
        the others take its tables when its leases run out."""
        drain = asyncio.create_task(self._drain(), name="cluster drain")
        done, _ = await asyncio.wait({drain}, timeout=DRAIN_SECONDS)
        if done:
            drain.result()  # what went wrong in it, raised here as before
            return
        logs.warning("cluster node did not drain in time", node=self.node_id, seconds=DRAIN_SECONDS)
        stacks.log_tasks("drain past its bound")
        drain.cancel()

    async def _drain(self) -> None:
        """Stop the tables, store what waits, release every lease and tell the other nodes."""
        self._stopping = True
        await self.features.stop()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        held = dict(self.fences)
        self.fences.clear()  # nothing more is written under these leases
        self.hub.close()
        with contextlib.suppress(Exception):
            for table_id, (token, _) in held.items():  # still in this node's set: the others' to take
                await self.leases.release(table_id, token, forget=False)
            await self.redis.delete(self._node_key(self.node_id))  # silent from now on
            self.bus.send("*", Free(tables=list(held), node=self.node_id))
            await self.bus.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
            await self._pool.disconnect()
        logs.info("cluster node drained", node=self.node_id, tables=len(held))

    async def health(self) -> dict[str, Any]:
        """Redis and the database, each ``ok`` or ``down``."""
        report: dict[str, Any] = {"node": self.node_id, "nodes": len(self.loads), "owned": len(self.fences)}
        try:
            await asyncio.wait_for(self.redis.ping(), 2)
            report["redis"] = "ok"
        except Exception:
            report["redis"] = "down"
        try:
            await asyncio.wait_for(asyncio.to_thread(self._db_ping), 5)
            report["db"] = "ok"
        except Exception:
            report["db"] = "down"
        return report

    def _db_ping(self) -> None:
        import sqlalchemy as sa

        with self.hub.store.engine.connect() as c:
            c.execute(sa.text("SELECT 1"))

    # ---- the hub's hooks ----------------------------------------------------------------------------

    def take(self, client: Client, message: ClientRequest, reply: Reply) -> bool:
        """True when the request is this node's to forward (``reply`` is called later)."""
        if isinstance(client, RemoteClient) or isinstance(message, Ping | ListTables):
            return False  # a forwarded request is served here or refused, never forwarded again
        if isinstance(message, CreateTable):
            asyncio.get_running_loop().create_task(self._create(client, message, reply))
            return True
        ref = getattr(message, "table", None)
        if not isinstance(ref, str) or self._local_table(ref, isinstance(message, Watch | Sit)) is not None:
            return False
        asyncio.get_running_loop().create_task(self._forward_table(client, message, ref, reply))
        return True

    def drops(self, table: Table) -> bool:
        """After a failed write: True when it failed because this node lost the table (dropped)."""
        if table.id in self.fences:
            return False
        self._lose(table.id)
        return True

    def lobby(self) -> list[TableSummary]:
        """The other nodes' public tables on the index's page this node last read."""
        return [t for _, t in self._elsewhere()]

    def _elsewhere(self) -> list[tuple[str, TableSummary]]:
        return [
            (node, t)
            for node, t in self.index.listed
            if node in self.loads and node != self.node_id and t.id not in self.hub.tables
        ]  # a live node's (a dead one's are taken over), not one that moved here (listed once)

    def seats(self, account_id: str) -> list[SeatRef]:
        """The seats the account holds at other nodes' public tables."""
        return [
            SeatRef(table=t.id, seat=n)
            for _, t in self._elsewhere()
            for n, p in enumerate(t.seats)
            if p is not None and p.id == account_id
        ]

    def connect(self, client: Client, bot_username: str | None) -> None:
        self.features.connect(client, bot_username)

    def disconnect(self, client: Client) -> None:
        self.features.disconnect(client)
        for follow in self.follows.values():
            follow.clients.pop(client, None)
            follow.codes.pop(client, None)
            follow.asking.discard(client)
        connection = self._ids.pop(client, None)
        if connection is not None:
            self._local.pop(connection, None)
            for node in self._asked.pop(client, set()):
                self.bus.send(node, Bye(origin=self.node_id, conn=connection))

    # ---- requests for other nodes' tables --------------------------------------------------------------

    def _local_table(self, ref: str, by_code: bool) -> Table | None:
        """The table of this node that ``ref`` names (by its join code too, for watch and sit)."""
        table = self.hub.tables.get(ref)
        if table is None and by_code:
            table = next((t for t in self.hub.tables.values() if t.state.code == ref), None)
        return table

    def _conn(self, client: Client) -> str:
        connection = self._ids.get(client)
        if connection is None:
            connection = self._ids[client] = secrets.token_hex(6)
            self._local[connection] = client
        return connection

    async def _create(self, client: Client, message: CreateTable, reply: Reply) -> None:
        if not await self.features.take_table(client, reply):
            return
        target = min(
            self.loads.items(), key=lambda kv: (kv[1], kv[0] != self.node_id), default=(self.node_id, 0)
        )[0]
        table_id = short_id(8)  # named here: the frames of its owner come before the ack
        if target == self.node_id:
            await self._create_here(client, message, reply, table_id)
        else:
            self.loads[target] = self.loads.get(target, 0) + 1  # until it says so itself
            self._forward(target, client, message, reply, table_id)

    async def _create_here(self, client: Client, message: CreateTable, reply: Reply, table_id: str) -> None:
        try:
            token = await self.leases.acquire(table_id)
        except Exception as error:
            logs.warning("could not take a lease for a new table", error=type(error).__name__)
            reply(Fault("server_error", "the cluster is not reachable; try again"))
            return
        if token is None:  # pragma: no cover - a fresh random id
            reply(Fault("server_error", "try again"))
            return
        self.fences[table_id] = (token, time.monotonic() + self.settings.lease_seconds)
        self.loads[self.node_id] = len(self.fences)
        try:
            create_table(self.hub, client, message, reply, table_id)  # the handler: a club's room checked
        except Fault as fault:
            self.fences.pop(table_id, None)
            await self.leases.release(table_id, token)
            reply(fault)

    async def _forward_table(self, client: Client, message: ClientRequest, ref: str, reply: Reply) -> None:
        follow = self.follows.get(ref)
        if follow is not None and follow.owner is not None and follow.owner in self.loads:
            self._forward(follow.owner, client, message, reply, ref)  # no look-up: its frames come from there
            return
        try:
            table_id = ref
            owner = (await self.leases.owners([ref]))[ref]
            if owner is None and isinstance(message, Watch | Sit):  # perhaps a join code
                found = await asyncio.to_thread(self.hub.store.table_of_code, ref)
                if found is not None:
                    table_id = found
                    owner = (await self.leases.owners([found]))[found]
            if owner is not None and owner != self.node_id and owner not in self.loads:
                raise Fault("moving", MOVING)  # its node is gone: its lease will be soon
            if owner is None or owner == self.node_id:
                row = await asyncio.to_thread(self.hub.store.table_row, table_id)
                if row is not None and row["status"] != "finished":
                    raise Fault("moving", MOVING)
                if table_id in self.hub.tables:  # adopted meanwhile
                    self.hub.handle(client, message, reply)
                    return
                raise Fault("not_found", f"no table {ref!r}, or not with that join code")
        except Fault as fault:
            reply(fault)
            return
        except Exception as error:
            logs.warning("could not look up a table's owner", error=type(error).__name__)
            reply(Fault("server_error", "the cluster is not reachable; try again"))
            return
        self._forward(owner, client, message, reply, table_id)

    def _forward(
        self, node: str, client: Client, message: ClientRequest, reply: Reply, table: str | None
    ) -> None:
        request_id = secrets.token_hex(8)
        timer = asyncio.get_running_loop().call_later(
            self.settings.request_seconds, self._timed_out, request_id
        )
        self.pending[request_id] = Pending(reply, timer, client, message, table, node)
        self._asked.setdefault(client, set()).add(node)
        self.metrics.forwarded.labels("out").inc()
        if table is not None and isinstance(message, Watch | Sit | CreateTable):  # frames come before the ack
            follow = self.follows.setdefault(table, Follow(node))
            follow.clients.setdefault(client, message.last_seq if isinstance(message, Watch) else None)
            code = getattr(message, "code", None)
            if code is not None:
                follow.codes[client] = code
        request = Forwarded(
            id=request_id,
            origin=self.node_id,
            conn=self._conn(client),
            account=client.account_id,
            nickname=client.nickname,
            bot=is_bot_account(client),
            message=message,
            table=table,
            blocks=sorted(self.hub.directory.social(client.account_id).blocks) or None,
            address=client.address,
        )
        self.bus.send(node, request)

    def _timed_out(self, request_id: str) -> None:
        pending = self.pending.pop(request_id, None)
        if pending is not None:
            pending.reply(Fault("server_error", "the table's node did not answer; try again"))

    def _answered(self, message: Answered | Refused) -> None:
        pending = self.pending.pop(message.id, None)
        if pending is None:
            return
        pending.timer.cancel()
        if isinstance(message, Refused):
            follow = self.follows.get(pending.table or "")
            if message.code == "moving" and follow is not None and follow.owner == pending.node:
                follow.owner = None  # not there any more: look it up next time
            pending.reply(Fault(message.code, message.message, message.rule))
            return
        table, client = pending.table, pending.client
        if table is not None and isinstance(pending.message, Leave):
            follow = self.follows.get(table)
            if follow is not None:
                follow.clients.pop(client, None)
                follow.codes.pop(client, None)
        elif table is not None and isinstance(pending.message, Watch | Sit | CreateTable):
            follow = self.follows.setdefault(table, Follow(pending.node))
            follow.owner = pending.node
            follow.clients.setdefault(client, None)
        pending.reply(Answer(message.seq, owner_hint(pending.message, message.data, pending.node)))

    # ---- frames for this node's connections ----------------------------------------------------------

    def _frame(self, head: FrameHead, frame: str) -> None:
        self.metrics.relayed.inc()
        client = self._local.get(head.conn)
        if client is None:
            return
        table, seq = head.table, head.seq
        if table is None or seq is None:  # of no table's sequence
            client.send(frame)
            return
        follow = self.follows.get(table)
        if table in self.hub.tables or follow is None or client not in follow.clients:
            return  # late, from an owner it no longer follows there (it left, or the table is here now)
        last = follow.clients[client]
        if last is not None:
            if seq <= last and not (head.snapshot and seq == last):
                return  # had it already (a replay that overlapped, or the old owner late)
            if not head.snapshot and seq > last + 1:  # a gap (a message lost): ask the owner to replay
                self._rewatch(table, [client])
                return
        follow.clients[client] = seq
        follow.asking.discard(client)
        client.send(frame)

    def _rewatch(self, table_id: str, clients: list[Client]) -> None:
        """Subscribe ``clients`` again, from the last seq each got, at the table's owner."""
        follow = self.follows.get(table_id)
        if follow is None:
            return
        table = self.hub.tables.get(table_id)
        for client in clients:
            if client in follow.asking or client not in follow.clients:
                continue
            last = follow.clients[client]
            if table is not None:  # it is ours now
                follow.clients.pop(client, None)
                self.hub.directory.follow(client, table_id)
                table.subscribe(client, last)
                continue
            if follow.owner is None:
                continue
            follow.asking.add(client)

            def done(answer: Answer | BaseException, client: Client = client) -> None:
                follow.asking.discard(client)
                if isinstance(answer, BaseException):
                    logs.info("could not follow a table at its new owner", table=table_id)

            watch = Watch(
                type="watch", id="cluster", table=table_id, last_seq=last, code=follow.codes.get(client)
            )
            self._forward(follow.owner, client, watch, done, table_id)
        if table is not None and not follow.clients:
            self.follows.pop(table_id, None)

    # ---- requests from other nodes ---------------------------------------------------------------------

    def _notice(self, message: Notice) -> None:
        match message:
            case Forwarded():
                self._serve(message)
            case Answered() | Refused():
                self._answered(message)
            case Bye(origin=origin, conn=conn):
                proxy = self.proxies.pop((origin, conn), None)
                if proxy is not None:
                    self.hub.disconnect(proxy)
            case Owner(table=table, node=node):
                if node != self.node_id and table in self.fences:
                    self.fences.pop(table, None)
                    self._lose(table)
                self._moved(table, node)
            case Free(node=node):
                if node != self.node_id:
                    self._silent(node)
            case QuickGroup() | QuickSeated() | EventSeatedAt() | Deliver() | CloseRoom() | RoomClosed():
                self.features.notice(message)
            case SocialChanged():
                self.features.notice(message)
            case _:
                assert_never(message)

    def follow_remote(self, table_id: str, owner: str, clients: list[Client]) -> None:
        """Subscribe this node's ``clients`` to ``owner``'s table (quick play seated them there)."""
        follow = self.follows.setdefault(table_id, Follow(owner))
        follow.owner = owner
        for client in clients:
            follow.clients.setdefault(client, None)
        self._rewatch(table_id, clients)

    def _moved(self, table_id: str, node: str) -> None:
        follow = self.follows.get(table_id)
        if follow is not None and (follow.owner != node or table_id in self.hub.tables):
            follow.owner = node
            follow.asking.clear()
            self._rewatch(table_id, list(follow.clients))

    def _serve(self, message: Forwarded) -> None:
        origin, request_id = message.origin, message.id
        self.metrics.forwarded.labels("in").inc()

        def reply(outcome: Answer | BaseException) -> None:
            answer: Answered | Refused
            if isinstance(outcome, Fault):
                answer = Refused(id=request_id, code=outcome.code, message=str(outcome), rule=outcome.rule)
            elif isinstance(outcome, BaseException):
                answer = Refused(
                    id=request_id, code="server_error", message="the server failed on this request"
                )
            else:
                data = outcome.data
                if isinstance(data, Prebuilt):  # the lobby's shared page (never forwarded today)
                    data = LobbyData.model_validate_json(data.json)
                answer = Answered(id=request_id, seq=outcome.seq, data=data)
            self.bus.send(origin, answer)

        key = (origin, message.conn)
        proxy = self.proxies.get(key)
        if proxy is None:
            proxy = self.proxies[key] = RemoteClient(
                self.bus, origin, message.conn, message.account, message.nickname, message.bot,
                message.address,
            )  # fmt: skip
        self.features.keep_blocks(message.account, message.blocks)  # for its chat (issue 32)
        request = message.message
        if isinstance(request, CreateTable):
            table_id = message.table or short_id(8)
            asyncio.get_running_loop().create_task(self._create_here(proxy, request, reply, table_id))
            return
        ref = getattr(request, "table", None)
        if isinstance(ref, str) and self._local_table(ref, isinstance(request, Watch | Sit)) is None:
            reply(Fault("moving", MOVING))
            return
        self.hub.handle(proxy, request, reply)

    # ---- leases, heartbeats, takeovers and the lobby ------------------------------------------------

    # Each loop ends when the node stops even if a cancellation is lost on the way (periodic.every):
    # redis-py has been seen to swallow one (a drain waited for ever on ``_lobbying``;
    # niugui/server/stacks.py showed where), after which the loop would have gone round again.

    async def _renewing(self) -> None:
        async def renewal() -> None:
            await self._renew()
            await self._reconcile()
            await self._follow_owners()

        await every(self._period, renewal, "cluster renewal failed", lambda: self._stopping)

    async def _renew(self) -> None:
        for table_id in [t for t in self.fences if t not in self.hub.tables and t not in self._adopting]:
            token, _ = self.fences.pop(table_id)  # dropped from memory (finished, expired): let it go
            await self.leases.release(table_id, token)
        held = {t: token for t, (token, _) in self.fences.items()}
        started = time.monotonic()
        lost = await self.leases.renew(held)
        self.metrics.rtt.observe(time.monotonic() - started)
        self.metrics.renewals.inc()
        until = started + self.settings.lease_seconds
        for table_id, token in held.items():
            if table_id in lost:
                if self.fences.get(table_id, (None,))[0] == token:
                    self.fences.pop(table_id, None)
                    self._lose(table_id)
            elif self.fences.get(table_id, (None,))[0] == token:
                self.fences[table_id] = (token, until)
        self.metrics.owned.set(len(self.fences))

    async def _reconcile(self) -> None:
        """Tables in this node's set that it does not hold: taken back if nobody holds them (a lease
        that ran out while this node was busy), out of the set if another node does. Reads this node's
        set only, never every open table."""
        listed = await self.leases.members(self.node_id)
        stray = [t for t in listed if t not in self.fences and t not in self._adopting]
        if stray:
            await self._adopt_all(stray, self.node_id)

    async def _beating(self) -> None:
        seconds = self.settings.heartbeat_seconds
        await every(seconds, self._heartbeat, "cluster heartbeat failed", lambda: self._stopping)

    async def _heartbeat(self) -> None:
        """Announce this node (and its load), read which nodes beat, and take over the silent ones'
        tables (each survivor its share first, :func:`share`; any of them the rest a moment later)."""
        ttl = int(self.settings.dead_seconds * 1000)  # silent this long: dead
        nodes_key = f"{self.prefix}:nodes"
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(self._node_key(self.node_id), json.dumps({"tables": len(self.fences)}), px=ttl)
            pipe.sadd(nodes_key, self.node_id)
            pipe.smembers(nodes_key)
            _, _, members = await pipe.execute()
        names = sorted(m.decode() if isinstance(m, bytes) else str(m) for m in members)
        values = await self.redis.mget([self._node_key(n) for n in names])
        loads = {}
        for name, value in zip(names, values, strict=True):
            if value is not None:
                loads[name] = int(json.loads(value)["tables"])
            elif name != self.node_id:
                self._silent(name)
        loads[self.node_id] = len(self.fences)
        self.loads = loads
        self.metrics.nodes.set(len(loads))
        for key, proxy in list(self.proxies.items()):
            if key[0] not in loads:  # its node is gone: so is the connection
                del self.proxies[key]
                self.hub.disconnect(proxy)
        for request_id, pending in list(self.pending.items()):
            if pending.node not in loads:  # it will never answer: the client tries again (elsewhere)
                del self.pending[request_id]
                pending.timer.cancel()
                pending.reply(Fault("moving", MOVING))

    def _silent(self, node: str) -> None:
        """``node`` stopped beating (or drained): take over its tables, once at a time."""
        if node in self._taking or self._stopping:
            return
        self._taking.add(node)
        asyncio.get_running_loop().create_task(self._take_over(node))

    async def _take_over(self, dead: str) -> None:
        try:
            tables = await self.leases.members(dead)
            if not tables:
                self._dead_beats.pop(dead, None)
                if dead != self.node_id:
                    await self.redis.srem(f"{self.prefix}:nodes", dead)
                return
            beats = self._dead_beats[dead] = self._dead_beats.get(dead, 0) + 1
            live = sorted(n for n in self.loads if n != dead)
            if beats <= 2 and dead != self.node_id:  # my share first; the rest if still there later
                tables = [t for t in tables if share(t, live) == self.node_id]
            logs.info("taking over a silent node's tables", node=dead, tables=len(tables))
            await self._adopt_all(tables, dead)
        except Exception as error:
            logs.warning("could not take over a node's tables", node=dead, error=type(error).__name__)
        finally:
            self._taking.discard(dead)

    def _node_key(self, node: str) -> str:
        return self.leases.node_key(node)

    async def _follow_owners(self) -> None:
        """The tables this node's connections follow: where each is now (one moved: follow it)."""
        followed = list(self.follows)
        owners = await self.leases.owners(followed)
        for table_id in followed:
            follow = self.follows.get(table_id)
            if follow is None:
                continue
            owner = owners.get(table_id)
            if not follow.clients:
                del self.follows[table_id]
            elif owner is not None and owner != follow.owner:
                self._moved(table_id, owner)

    async def _lobbying(self) -> None:
        await every(self.settings.lobby_seconds, self._lobby, "cluster lobby failed", lambda: self._stopping)

    async def _lobby(self) -> None:
        """Write what changed among this node's public tables to the index; read its first page."""
        await self.index.publish(self.hub.own_lobby())
        await self.index.read()

    async def _adopt_orphans_once(self) -> None:
        """At the start only: the open tables that no node holds nor lists (from a version without
        the nodes' sets, or a Redis that lost its data) are this node's to take."""
        open_ids = await asyncio.to_thread(self.hub.store.table_ids)
        owners = await self.leases.owners(open_ids)
        orphans = [t for t in open_ids if owners[t] is None and t not in self.hub.quarantined]
        await self._adopt_all(orphans)

    async def _adopt_all(self, table_ids: list[str], dead: str | None = None) -> None:
        """Adopt the tables in batches of :data:`ADOPT_BATCH` (:meth:`_adopt_batch`); ``dead``: they
        are that silent node's (see :meth:`Leases.steal`), else nobody's (their lease is free)."""
        wanted = [t for t in dict.fromkeys(table_ids) if t not in self.fences and t not in self._adopting]
        if self._stopping or not wanted:
            return
        self._adopting.update(wanted)
        limit = asyncio.Semaphore(BATCHES_AT_ONCE)

        async def one(batch: list[str]) -> None:
            async with limit:
                try:
                    await self._adopt_batch(batch, dead)
                except Exception as error:  # what it took and did not serve: its lease runs out
                    logs.warning("could not adopt tables", tables=len(batch), error=type(error).__name__)
                    for table_id in batch:  # unrenewed, and this node's set lists it: taken again
                        if table_id not in self.hub.tables:  # by :meth:`_reconcile`
                            self.fences.pop(table_id, None)
                finally:
                    self._adopting.difference_update(batch)

        await asyncio.gather(*(one(wanted[i : i + ADOPT_BATCH]) for i in range(0, len(wanted), ADOPT_BATCH)))

    async def _take_leases(self, table_ids: list[str], dead: str | None) -> dict[str, int]:
        """The tables whose lease this node took, with its fencing token (all at once)."""

        async def one(table_id: str) -> int | None:
            if dead is None:
                return await self.leases.acquire(table_id)
            return await self.leases.steal(table_id, dead)

        tokens = await asyncio.gather(*(one(t) for t in table_ids))
        return {t: token for t, token in zip(table_ids, tokens, strict=True) if token is not None}

    async def _adopt_batch(self, table_ids: list[str], dead: str | None) -> None:
        """Take tables over: their leases, then their fences raised in the database and their state
        read in one transaction, rebuilt away from the loop, then served from here."""
        if self._stopping:
            return
        taken = time.monotonic()
        tokens = await self._take_leases(table_ids, dead)
        for table_id, token in tokens.items():  # renewed from now on
            self.fences[table_id] = (token, taken + self.settings.lease_seconds)
        try:
            read = await asyncio.to_thread(self._read_batch, tokens)
        except Exception as error:  # the leases run out unrenewed; this node's set still lists the
            logs.warning("could not read tables to adopt", tables=len(tokens), error=type(error).__name__)
            for table_id, token in tokens.items():  # tables: :meth:`_reconcile` takes them again
                if self.fences.get(table_id, (None,))[0] == token:
                    self.fences.pop(table_id)
            return
        if self._stopping:
            return  # the drain releases every lease in :attr:`fences` (this node's set still lists them)
        for table_id, token in tokens.items():
            if self.fences.get(table_id, (None,))[0] != token:
                continue  # lost meanwhile (the lease is no longer this adoption's)
            outcome = read.get(table_id, "taken")
            if isinstance(outcome, tuple):
                try:
                    table = self.hub.loader.build(table_id, outcome)
                except Exception as error:
                    outcome = error
                else:
                    self._install(table_id, table)
                    continue
            self.fences.pop(table_id, None)
            if isinstance(outcome, BaseException):
                self.hub.loader.quarantine(table_id, outcome)
            await self._let_go(table_id, token, forget_listing=outcome in ("gone", "finished"))
        self.metrics.owned.set(len(self.fences))
        self.loads[self.node_id] = len(self.fences)

    async def _let_go(self, table_id: str, token: int, forget_listing: bool) -> None:
        """Release a lease a takeover took and will not serve (and, ``forget_listing``, the lobby's
        entry of a table with nothing to go on with); a failure only logged: the lease runs out."""
        try:
            await self.leases.release(table_id, token)
            if forget_listing:
                await self.index.remove([table_id])
        except Exception as error:
            logs.warning("could not let an adopted table go", table=table_id, error=type(error).__name__)

    def _read_batch(self, tokens: dict[str, int]) -> dict[str, Rebuilt | Exception | str]:
        """Away from the loop: each table claimed with its token and rebuilt (:meth:`Store.stored_tables`,
        :meth:`TableLoader.replayed`) — or why not: ``"finished"``, ``"gone"`` (never stored),
        ``"taken"`` (a newer token holds it), the exception its events raised."""
        loader = self.hub.loader
        stored = self.hub.store.stored_tables(list(tokens), self.hub.config.replay_limit, fences=tokens)
        read: dict[str, Rebuilt | Exception | str] = {}
        for table_id in tokens:
            found = stored.get(table_id)
            if found is None:
                read[table_id] = "gone" if self.hub.store.table_row(table_id) is None else "taken"
            elif found.status == "finished":
                read[table_id] = "finished"
            else:
                try:
                    read[table_id] = loader.replayed(table_id, found)
                except Exception as error:
                    read[table_id] = error
        return read

    def _install(self, table_id: str, table: Table) -> None:
        """An adopted table, rebuilt: served from this node from now on (instead of a copy this node
        may still have had), its timers re-armed."""
        old = self.hub.tables.pop(table_id, None)
        if old is not None:
            old.close()
        self.hub.tables[table_id] = table
        self.hub.metrics.tables.set(len(self.hub.tables))
        table.resume()
        self.metrics.takeovers.inc()
        logs.info("table adopted", table=table_id, node=self.node_id, seq=table.state.seq)
        self._moved(table_id, self.node_id)  # this node's followers subscribe here
        self.bus.send("*", Owner(table=table_id, node=self.node_id))

    def _lose(self, table_id: str) -> None:
        """The lease is gone (another node has the table): drop it; this node's own connections follow
        it to its new owner from the last event they got."""
        self.metrics.lost.inc()
        self.metrics.owned.set(len(self.fences))
        table = self.hub.tables.get(table_id)
        if table is None:
            return
        local = [c for c in table.fanout.subscribers if not isinstance(c, RemoteClient)]
        seq = table.state.seq
        self.hub.forget(table_id)
        logs.warning("lost the lease of a table; dropped it", table=table_id, node=self.node_id)
        if not local:
            return
        follow = self.follows.setdefault(table_id, Follow())
        for client in local:
            follow.clients[client] = seq
        asyncio.get_running_loop().create_task(self._find_owner(table_id))

    async def _find_owner(self, table_id: str) -> None:
        owner = (await self.leases.owners([table_id]))[table_id]
        if owner is not None and owner != self.node_id:
            self._moved(table_id, owner)


def owner_hint(request: ClientRequest, data: AckData | None, owner: str) -> AckData | None:
    """Table affinity (issue 32): the answer to a ``watch`` or ``sit`` that another node served names
    that node, the table's owner, so the client may connect to it (``/ws?node=<id>``) and have the
    table's frames built and sent there, not relayed. The only place a hint is added: a table of the
    answering node, and one process, never have one; nor has an ``invite`` (the seat it offers).

    >>> owner_hint(Watch(type="watch", id="c1", table="t1"), SeatData(seat=None), "n2")
    SeatData(seat=None, node='n2')
    >>> owner_hint(Ping(type="ping", id="c2"), None, "n2") is None
    True
    """
    if isinstance(request, Watch | Sit) and isinstance(data, SeatData):
        return data.model_copy(update={"node": owner})
    return data


def share(table_id: str, live: Sequence[str]) -> str:
    """Which of the ``live`` nodes takes ``table_id`` over first (rendezvous hashing: every node
    computes the same answer, and a silent node's tables spread evenly over the survivors).

    >>> share("t1", ["n0", "n1", "n2"]) == share("t1", ["n2", "n0", "n1"])
    True
    """
    return max(live, key=lambda n: hashlib.blake2b(f"{table_id}|{n}".encode(), digest_size=8).digest())
