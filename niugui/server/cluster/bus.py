"""The nodes' messages, over Redis pub/sub: each node listens on its own channel and on one shared by
all. What goes to one node in one moment is sent as one message, in order: frames an owner built for
that node's connections, and answers to the requests that node forwarded, keep their order.

Every bus message is one of the models below (:data:`BusMessage`, told apart by ``kind``), one per
line of a Redis message: its JSON, and for a :class:`FrameHead` a tab and the frame's text after it
(JSON text holds no raw tab or newline, so neither ends the header early, and the frame is relayed as
the owner built it, not escaped again). A line is parsed once, on receipt, by :func:`decode`; one that
is not a bus message is refused with a log line and the others of its batch still delivered.

Each Redis message travels sealed (:mod:`.seal`: an HMAC under the cluster's shared secret, with the
channel, the sender, a counter and the time): one whose seal does not hold is dropped whole, counted
(``niugui_cluster_bus_dropped_total{reason}``) and logged, before any of its lines is read.

>>> line = encode(FrameHead(conn="c1", table="t1", seq=7), '{"type":"event"}')
>>> line
'{"kind":"frame","conn":"c1","table":"t1","seq":7,"snapshot":false}\\t{"type":"event"}'
>>> decode(line)
(FrameHead(kind='frame', conn='c1', table='t1', seq=7, snapshot=False), '{"type":"event"}')
>>> decode('{"kind":"owner","table":"t1","node":"n2"}')
Owner(kind='owner', table='t1', node='n2')
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    ValidationError,
)
from redis.asyncio import Redis

from .. import logs
from ..handlers import ROUTES
from ..protocol import LobbyData, SeatData, TableData
from ..protocol import Request as ClientRequest
from .seal import Opener, Sealer, Unsealed

CLOSE_SECONDS = 5.0
"""How long :meth:`Bus.close` waits for what is queued to be published."""


def _client_request(value: Any) -> ClientRequest:
    """A client message carried by the bus, read by the registry of client messages."""
    if isinstance(value, ClientRequest):
        return value
    kind = value.get("type") if isinstance(value, dict) else None
    found = ROUTES.get(kind) if isinstance(kind, str) else None
    if found is None:
        raise ValueError(f"not a client message type: {kind!r}")
    request: ClientRequest = found.model.model_validate(value)
    return request


def _dump_request(message: ClientRequest) -> dict[str, Any]:
    return message.model_dump(mode="json")


CarriedRequest = Annotated[ClientRequest, PlainValidator(_client_request), PlainSerializer(_dump_request)]
"""Any client message of the registry (``niugui.server.handlers.ROUTES``), as the bus carries it."""


class _Bus(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FrameHead(_Bus):
    """A frame for one of the receiving node's connections: which, and (for a table's frame) which
    table and ``seq`` it is, so that the receiver orders frames without reading their text."""

    kind: Literal["frame"] = "frame"
    conn: str
    table: str | None = None
    """None: a frame of no table's sequence (an invitation, a quick-play notice): delivered as is."""
    seq: int | None = None
    snapshot: bool = False
    """A snapshot (everything the seat may know at ``seq``), not one event."""


class Forwarded(_Bus):
    """A request of a connection of node ``origin`` for a table this node owns (or is to create)."""

    kind: Literal["request"] = "request"
    id: str
    origin: str
    conn: str
    account: str
    nickname: str
    bot: bool = False
    message: CarriedRequest
    table: str | None = None
    """The table it is for (for ``create_table``: the id the origin chose for it)."""
    blocks: list[str] | None = None
    """Whom the connection's account blocks (its node knows): the owner hides their chat from it."""
    address: str = ""
    """The address key the connection counts against at its node ("" when exempt or unknown): the
    owner's tables compare it as one node's do (distinct people of a rated game, issue 33 finding 8).
    The bus is sealed and Redis private (docs/scaling.md), so it goes no further than the nodes."""


class Answered(_Bus):
    """The forwarded request ``id`` succeeded: what its ``ack`` says."""

    kind: Literal["answered"] = "answered"
    id: str
    seq: int | None = None
    data: LobbyData | TableData | SeatData | None = None


class Refused(_Bus):
    """The forwarded request ``id`` was refused: what its ``error`` says."""

    kind: Literal["refused"] = "refused"
    id: str
    code: str
    message: str
    rule: str | None = None


class Bye(_Bus):
    """Connection ``conn`` of node ``origin`` is gone."""

    kind: Literal["bye"] = "bye"
    origin: str
    conn: str


class Owner(_Bus):
    """Node ``node`` owns ``table`` now (it adopted it)."""

    kind: Literal["owner"] = "owner"
    table: str
    node: str


class Free(_Bus):
    """Node ``node`` drained: it released these tables' leases."""

    kind: Literal["free"] = "free"
    tables: list[str]
    node: str


class QuickPerson(_Bus):
    """One player of a quick-play group: their account, name and the node they are connected to."""

    account: str
    nickname: str
    node: str


class QuickGroup(_Bus):
    """A group the cluster's quick-play queue formed, to be seated at a new table on the receiving
    node (where most of them are connected): niugui/server/cluster/quick.py."""

    kind: Literal["quick_group"] = "quick_group"
    people: list[QuickPerson]
    turn_seconds: int | None = None
    games: int | None = None
    bots: bool = False
    waiting: int = 0
    """Players still in the queue when the group was formed."""


class QuickSeated(_Bus):
    """Quick play seated these accounts (connected to the receiving node) at ``table`` of ``node``."""

    kind: Literal["quick_seated"] = "quick_seated"
    table: str
    node: str
    seats: dict[str, int]
    waiting: int = 0


class EventSeatedAt(_Bus):
    """A Swiss round (issue 30) seated these accounts (connected to the receiving node) at ``table`` of
    ``node``: each is told (``event_seated``) and follows the table there."""

    kind: Literal["event_seated_at"] = "event_seated_at"
    event: str
    round: int
    table: str
    node: str
    seats: dict[str, int]


class Deliver(_Bus):
    """A frame for every connection of ``account`` on the receiving node (an invitation), unless that
    account blocks ``author``."""

    kind: Literal["deliver"] = "deliver"
    account: str
    frame: str
    author: str | None = None


class CloseRoom(_Bus):
    """Node ``origin`` asks the owner to close ``table``, a room of ``club`` (its route checked the
    asker's role); answered by :class:`RoomClosed` with the same ``id``."""

    kind: Literal["close_room"] = "close_room"
    id: str
    origin: str
    table: str
    club: str


class RoomClosed(_Bus):
    """The answer to :class:`CloseRoom` ``id``: ``closed``, ``no_table`` or ``room_in_play``."""

    kind: Literal["room_closed"] = "room_closed"
    id: str
    outcome: Literal["closed", "no_table", "room_in_play"]
    message: str = ""


class SocialChanged(_Bus):
    """These accounts' friends or blocks changed (a node that keeps them for its tables reads again)."""

    kind: Literal["social"] = "social"
    accounts: list[str]


Notice = (
    Forwarded
    | Answered
    | Refused
    | Bye
    | Owner
    | Free
    | QuickGroup
    | QuickSeated
    | EventSeatedAt
    | Deliver
    | CloseRoom
    | RoomClosed
    | SocialChanged
)
"""Every bus message but a frame."""
BusMessage = Annotated[FrameHead | Notice, Field(discriminator="kind")]
_ADAPTER: TypeAdapter[FrameHead | Notice] = TypeAdapter(BusMessage)


class Refusal(ValueError):
    """A line that is not a bus message."""


def encode(message: FrameHead | Notice, frame: str | None = None) -> str:
    """One line: ``message``'s JSON, and the ``frame`` text after a tab (a :class:`FrameHead`'s)."""
    head = message.model_dump_json()
    return head if frame is None else f"{head}\t{frame}"


def decode(line: str) -> tuple[FrameHead, str] | Notice:
    """The message of one line (a frame: its head and its text); :class:`Refusal` says why a line
    is none.

    >>> decode('{"kind":"owner","table":"t1"}')
    Traceback (most recent call last):
    ...
    niugui.server.cluster.bus.Refusal: not a bus message: owner: node: Field required
    """
    head, tab, frame = line.partition("\t")
    try:
        message = _ADAPTER.validate_json(head)
    except ValidationError as error:
        first = error.errors()[0]
        where = "".join(f"{part}: " for part in first["loc"])
        raise Refusal(f"not a bus message: {where}{first['msg']}") from None
    if isinstance(message, FrameHead):
        if not tab:
            raise Refusal("not a bus message: a frame's head without its text")
        return message, frame
    if tab:
        raise Refusal(f"not a bus message: {message.kind} with a frame's text")
    return message


OnFrame = Callable[[FrameHead, str], None]
"""Called with each frame that came for a connection of this node: its head and its text."""
OnNotice = Callable[[Notice], None]
"""Called with each other message that came."""
OnDropped = Callable[[str], None]
"""Called with the reason each time a Redis message is dropped for its seal (:class:`.Unsealed`)."""


class Bus:
    def __init__(
        self,
        redis: Redis,
        prefix: str,
        node_id: str,
        on_frame: OnFrame,
        on_notice: OnNotice,
        *,
        secret: bytes,
        on_dropped: OnDropped | None = None,
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.node_id = node_id
        self.on_frame = on_frame
        self.on_notice = on_notice
        self._outbox: dict[str, list[str]] = {}
        self._flushing = False
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self.published = 0
        self.refused = 0
        """Lines received that were not bus messages (each logged)."""
        self._sealer = Sealer(secret, node_id)
        self._opener = Opener(secret)
        self.dropped = 0
        """Redis messages received whose seal did not hold (each logged, none of their lines read)."""
        self.on_dropped = on_dropped

    def channel(self, node_id: str) -> str:
        return f"{self.prefix}:to:{node_id}"

    @property
    def everyone(self) -> str:
        return f"{self.prefix}:all"

    async def start(self) -> None:
        await self._pubsub.subscribe(self.channel(self.node_id), self.everyone)
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._send())]

    async def close(self) -> None:
        """Publish what is queued — for at most :data:`CLOSE_SECONDS`: a stopping node that cannot
        reach Redis still stops (the others learn of it by its silent heartbeat) — then stop."""
        try:
            async with asyncio.timeout(CLOSE_SECONDS):
                await self.drain()
        except TimeoutError:
            logs.warning("cluster messages not published before closing", batches=self._queue.qsize())
        self._closing = True  # the loops end even if the cancellation is lost (as periodic.every's)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()

    async def drain(self) -> None:
        """Wait until everything queued has been published."""
        self._flush()
        await self._queue.join()

    # ---- sending -------------------------------------------------------------------------------------

    def frame(self, node_id: str, head: FrameHead, frame: str) -> None:
        """A frame (JSON text, no raw newline) for connection ``head.conn`` of node ``node_id``."""
        self._put(node_id, encode(head, frame))

    def send(self, node_id: str, message: Notice) -> None:
        """To one node (``"*"``: to every node, this one too)."""
        self._put(node_id, encode(message))

    def _put(self, node_id: str, line: str) -> None:
        self._outbox.setdefault(node_id, []).append(line)
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        outbox, self._outbox = self._outbox, {}
        for node_id, lines in outbox.items():
            channel = self.everyone if node_id == "*" else self.channel(node_id)
            self._queue.put_nowait((channel, "\n".join(lines)))

    async def _send(self) -> None:
        while not self._closing:
            first = await self._queue.get()
            batch = [first]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, self._sealer.seal(channel, data))
                    await pipe.execute()
                self.published += len(batch)
            except Exception as error:  # Redis away: these are lost; receivers catch up by seq
                logs.warning("could not publish to the cluster", error=type(error).__name__)
            finally:
                for _ in batch:
                    self._queue.task_done()

    # ---- receiving -----------------------------------------------------------------------------------

    async def _listen(self) -> None:
        while not self._closing:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except Exception as error:  # not a cancellation: a BaseException, it ends the loop
                logs.warning("cluster subscription failed; resubscribing", error=type(error).__name__)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            data, channel = message["data"], message["channel"]
            self.receive(
                channel.decode() if isinstance(channel, bytes) else str(channel),
                data.decode(errors="replace") if isinstance(data, bytes) else str(data),
            )

    def receive(self, channel: str, data: str) -> None:
        """A Redis message that came on ``channel``: its lines dispatched if its seal holds, else it is
        dropped, counted and logged."""
        try:
            body = self._opener.open(channel, data)
        except Unsealed as unsealed:
            self.dropped += 1
            if self.on_dropped is not None:
                self.on_dropped(str(unsealed))
            if self.dropped & (self.dropped - 1) == 0:  # the 1st, 2nd, 4th, 8th…: a flood floods no log
                logs.warning(
                    "a cluster message was dropped: its seal does not hold",
                    reason=str(unsealed),
                    dropped=self.dropped,
                )
            return
        self.dispatch(body)

    def dispatch(self, data: str) -> None:
        """Hand each line of one Redis message over; refuse (and log) each that is no bus message."""
        for line in data.split("\n"):
            try:
                received = decode(line)
            except Refusal as refusal:
                self.refused += 1
                logs.warning("a cluster message was refused", reason=str(refusal), size=len(line))
                continue
            try:
                if isinstance(received, tuple):
                    self.on_frame(*received)
                else:
                    self.on_notice(received)
            except Exception:
                logs.exception("a cluster message failed")
