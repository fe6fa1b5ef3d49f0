"""A cluster node's player features beyond its tables (issue 32): quick play with one queue for every
node (:mod:`.quick`), accounts counted across nodes and found wherever they are connected
(:mod:`.presence`, :mod:`.caps`). One object per node, made by the node, with one loop of its own
(every second) so the node's lease, heartbeat and scan loops are untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from typing import Any

from redis.asyncio import Redis

from .. import logs
from ..friends_store import Social, friends_of
from ..hub import Hub
from ..invitations import invitation_frame
from ..periodic import every
from ..protocol import Invite
from ..tables import Client, Fault, Reply, Table
from .bus import Bus, CloseRoom, Deliver, EventSeatedAt, QuickGroup, QuickSeated, RoomClosed, SocialChanged
from .caps import Caps
from .presence import TTL_MS, Presence, where_of
from .queue import RedisQueue
from .quick import ClusterQuickPlay, Follow
from .rooms import Rooms
from .swiss import ClusterSwiss

TICK = 1.0
"""Seconds between two rounds of the loop (quick play's match, presence kept alive)."""
BLOCKS_KEPT = 50_000
"""Accounts of other nodes whose blocks a node keeps at most (then it reads them again as needed)."""


class Features:
    """What a node adds for players; ``live()``: the live nodes' ids; ``follow``: subscribe this node's
    connections to another node's table."""

    def __init__(
        self, hub: Hub, bus: Bus, redis: Redis, prefix: str, live: Callable[[], Iterable[str]], follow: Follow
    ) -> None:
        self.hub, self.bus, self.redis, self.prefix, self.live = hub, bus, redis, prefix, live
        self.node_id = bus.node_id
        self.presence = Presence(redis, prefix, self.node_id, live)
        queue = RedisQueue(redis, prefix, self.node_id)
        self.quick = ClusterQuickPlay(hub, bus, queue, live, follow, self._seated_at, self.presence.nodes_of)
        self.rooms = Rooms(hub, bus, redis, prefix, live)
        presence = self.presence
        self.swiss = ClusterSwiss(hub, bus, redis, prefix, presence.online, presence.nodes_of, follow)
        limits = hub.config.limits
        self.caps = Caps(
            redis, prefix, limits.account_rate, limits.account_burst, limits.tables_per_account_hour
        )
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._flushing: asyncio.Task[None] | None = None
        self._invites: set[asyncio.Task[None]] = set()
        self._blocks: dict[str, frozenset[str]] = {}
        """Whom each account connected to another node blocks (for its chat at this node's tables)."""
        hub.directory.elsewhere = self

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        """Stop the loop; this node's presence and rooms are gone at once (not after their expiry)."""
        self._stopping = True  # the loop ends even if the cancellation is lost (periodic.every)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        with contextlib.suppress(Exception):
            await self.swiss.stop()
        with contextlib.suppress(Exception):
            await self.redis.delete(
                *(f"{self.prefix}:{k}:{self.node_id}" for k in ("online", "bots", "seats", "rooms"))
            )

    def notice(
        self,
        message: QuickGroup | QuickSeated | EventSeatedAt | Deliver | CloseRoom | RoomClosed | SocialChanged,
    ) -> None:
        """A bus message for these features."""
        if isinstance(message, EventSeatedAt):
            self.swiss.notice(message)
        elif isinstance(message, Deliver):
            self._deliver(message)
        elif isinstance(message, SocialChanged):
            for account in message.accounts:
                if account in self._blocks:
                    self.remote_account(account)
        elif isinstance(message, CloseRoom | RoomClosed):
            self.rooms.notice(message)
        else:
            self.quick.notice(message)

    def connect(self, client: Client, bot_username: str | None) -> None:
        """A connection of this node opened (the other nodes know within moments)."""
        self.presence.connect(client, bot_username)
        self._flush_soon()

    def disconnect(self, client: Client) -> None:
        """A connection closed (another node's proxy: nothing to do)."""
        if self.presence.disconnect(client):
            self._flush_soon()

    def _flush_soon(self) -> None:
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush_presence())

    async def _flush_presence(self) -> None:
        try:
            await self.presence.flush(None)
        except Exception as error:
            logs.warning("cluster presence not written", error=type(error).__name__)

    async def connections(self, account: str) -> int:
        """The account's connections open on every node (0 when Redis does not answer)."""
        try:
            return await self.presence.connections(account)
        except Exception as error:
            logs.warning("the cluster's connections were not read", error=type(error).__name__)
            return 0

    async def _seated_at(self, account: str) -> str | None:
        """A table of another node where the account holds a seat (presence lists unfinished ones)."""
        seats = (await self.presence.seats([account], skip=self.node_id))[account]
        return next((s["table"] for s in seats), None)

    async def take_table(self, client: Client, reply: Reply) -> bool:
        """Before a new table: the account's cap counted on every node (False: refused, answered)."""
        try:
            if await self.caps.take_table(client.account_id):
                return True
        except Exception as error:  # Redis away: the node's own bucket still holds
            logs.warning("the cluster's table cap was not read", error=type(error).__name__)
            return True
        per_hour = self.hub.config.limits.tables_per_account_hour
        reply(Fault("rate_limited", f"at most {per_hour:g} new tables per hour; use one you have"))
        return False

    async def seats_of(self, account: str) -> list[dict[str, Any]]:
        """Where the account holds a seat on every node (``/api/me/seats``, answered on any node)."""
        here = self.hub.directory.seats_of(account)
        elsewhere = (await self._where([account], skip=self.node_id))[account]
        known = {s["table"] for s in here}
        return here + [
            {k: s[k] for k in ("table", "seat", "name", "status")}
            for s in elsewhere
            if s["table"] not in known
        ]

    async def friends_where(self, friends: list[str], viewer: str) -> dict[str, dict[str, Any]]:
        """Each friend's ``online`` and ``where`` (as ``viewer`` may see it), whichever node they are
        connected to and whichever node's table they sit at."""
        online = await self._online(friends)
        seats = await self._where(friends)
        return {f: {"online": f in online, "where": where_of(seats[f], viewer)} for f in friends}

    async def members_where(self, club: str, members: list[str]) -> dict[str, tuple[bool, str | None]]:
        """Each member: connected to some node, and the club's room where they sit (if any)."""
        online = await self._online(members)
        seats = await self._where(members)
        return {
            m: (m in online, next((s["table"] for s in seats[m] if s["club"] == club), None)) for m in members
        }

    async def _online(self, accounts: list[str]) -> set[str]:
        """Who of ``accounts`` is connected to any node (Redis away: those connected here)."""
        try:
            return await self.presence.online(accounts)
        except Exception as error:
            logs.warning("the cluster's presence was not read", error=type(error).__name__)
            return {a for a in accounts if self.hub.directory.connections(a)}

    async def _where(self, accounts: list[str], skip: str | None = None) -> dict[str, list[dict[str, Any]]]:
        """Each account's seats on every node but ``skip`` (Redis away: none)."""
        try:
            return await self.presence.seats(accounts, skip=skip)
        except Exception as error:
            logs.warning("the cluster's seats were not read", error=type(error).__name__)
            return {a: [] for a in accounts}

    def invite(self, client: Client, table: Table, message: Invite, reply: Reply) -> None:
        """An invitation whose guest (or inviting friend) is connected to another node: checked
        against the store's friendships and blocks, delivered to every node the guest is on."""
        task = asyncio.get_running_loop().create_task(self._invite(client, table, message, reply))
        self._invites.add(task)
        task.add_done_callback(self._invites.discard)

    async def _invite(self, client: Client, table: Table, message: Invite, reply: Reply) -> None:
        try:
            found = await self._guest(client, message)
        except Fault as fault:
            reply(fault)
            return
        except Exception as error:
            logs.warning("an invitation was not delivered", error=type(error).__name__)
            reply(Fault("server_error", "the cluster is not reachable; try again"))
            return
        guest, nodes = found
        friend = message.friend is not None

        def notify(seat: int) -> None:
            frame = invitation_frame(client, table, seat, friend)
            author = client.account_id if friend else None
            for node in nodes:
                self.bus.send(node, Deliver(account=guest, frame=frame, author=author))
            logs.info("invited across nodes", table=table.id, seat=seat, nodes=len(nodes))

        table.invite(client, guest, message.seat, notify, reply, friend=friend)

    async def _guest(self, client: Client, message: Invite) -> tuple[str, list[str]]:
        """The guest's account and the nodes it is connected to; a :class:`Fault` as on one node
        (a friend who blocks the inviter is answered as if offline)."""
        if message.friend is None:
            username = message.username or ""
            bot = await self.presence.bot(username)
            if bot is None:
                raise Fault("bot_offline", f"no bot account {username!r} is connected; start its client")
            return bot[1], [bot[0]]
        friend, inviter = message.friend, client.account_id
        friends = friends_of(self.hub.store)
        mine, theirs = await asyncio.to_thread(lambda: (friends.social(inviter), friends.social(friend)))
        if friend not in mine.friends:
            raise Fault("not_friends", "you can invite only your friends")
        nodes = await self.presence.nodes_of(friend)
        if not nodes or inviter in theirs.blocks:
            raise Fault("friend_offline", "that friend is not connected now")
        return friend, nodes

    # ---- blocks of accounts connected to other nodes -----------------------------------------------

    def keep_blocks(self, account: str, blocks: list[str] | None) -> None:
        """Whom an account connected to another node blocks, as its node said with a request."""
        if len(self._blocks) > BLOCKS_KEPT:
            self._blocks.clear()
        self._blocks[account] = frozenset(blocks or ())

    def remote_account(self, account: str) -> None:
        """Read again whom an account connected to another node blocks (it changed)."""
        friends = friends_of(self.hub.store)

        def read(social: Social | BaseException) -> None:
            if isinstance(social, BaseException):
                logs.warning("whom an account blocks was not read", error=type(social).__name__)
                self._blocks.pop(account, None)
            else:
                self._blocks[account] = social.blocks

        self.hub.services.read(lambda: friends.social(account), read)

    def blocks(self, reader: str, author: str) -> bool:
        """Whether ``reader`` (connected to another node) blocks ``author``."""
        return author in self._blocks.get(reader, frozenset())

    def social_changed(self, accounts: list[str]) -> None:
        """A route of this node changed these accounts' friends or blocks: every node reads again."""
        self.bus.send("*", SocialChanged(accounts=accounts))

    def _deliver(self, message: Deliver) -> None:
        directory = self.hub.directory
        if message.author is not None and directory.blocks(message.account, message.author):
            return
        for client in list(directory.connections(message.account)):
            client.send(message.frame)

    async def _loop(self) -> None:
        await every(TICK, self._round, "cluster features: a round failed", lambda: self._stopping)

    async def _round(self) -> None:
        await self.presence.flush(self.hub.directory)
        await self.rooms.flush(TTL_MS)
        await self.caps.flush()
        await self.quick.tick()
        await self.swiss.tick()
