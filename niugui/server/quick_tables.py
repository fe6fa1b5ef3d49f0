"""Quick play on one server: joining and leaving the queue (the player's card read first, away from
the event loop), and the rated table opened for each group the matchmaker forms
(:mod:`niugui.server.quickplay`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Protocol

from . import logs
from .config import Config
from .creation import TableFactory, short_id
from .directory import Directory
from .matchmaking import Preferences
from .protocol import TableSettings
from .quickplay import Matchmaker, Person, Seated
from .rematch import Rematches
from .store import PlayerCard, Store
from .tables import Answer, Client, Fault, Reply, Services, TableModel

QUICK_PLAY = "quick-play"
"""The creator of quick-play tables: no account (nobody may change their settings or fill them)."""


class QueueOfNodes(Protocol):
    """The queue of a cluster, shared by every node (niugui/server/cluster/quick.py)."""

    def join(
        self, client: Client, preferences: Preferences, card: PlayerCard, reply: Reply, bots: bool = False
    ) -> None:
        """Queue the account (``reply``: once it is, or why not); ``bots``: as :meth:`QuickTables.join`."""

    def leave(self, account_id: str) -> None: ...

    def waiting(self, account_id: str) -> bool:
        """Whether the account waits in the shared queue (through any node)."""

    def with_bots(self, account_id: str, reply: Reply) -> None: ...

    def seated_elsewhere(self, table_id: str, seats: dict[str, int]) -> None:
        """Tell the people connected to other nodes that they sit at this node's ``table_id``."""


class QuickTables:
    """The queue of one server and the tables it fills."""

    def __init__(
        self, config: Config, store: Store, services: Services, directory: Directory, factory: TableFactory
    ) -> None:
        self.config, self.store, self.services = config, store, services
        self.directory, self.factory = directory, factory
        self.matchmaker = Matchmaker(config.community, directory.connections, self._open_table, _later)
        self.rematches = Rematches(
            QUICK_PLAY,
            directory.tables,
            directory.connections,
            directory.card,
            self.check_free,
            self.matchmaker,
            self._open_rematch,
        )
        """再来一局 after a quick-play table's last game (:mod:`niugui.server.rematch`)."""
        self._joining: dict[str, object] = {}
        """Accounts whose quick play waits for their player card to be read: account → that request."""
        self.shared: QueueOfNodes | None = None
        """On a cluster node: the queue of every node, used instead of :attr:`matchmaker`."""
        self._placing: set[str] = set()
        """Accounts matched into a group whose table is not yet stored with them seated: they count as
        waiting, so no ``sit`` elsewhere slips into that window (review of finding 9)."""

    def join(self, client: Client, preferences: Preferences, reply: Reply, bots: bool = False) -> None:
        """Queue ``client``'s account once its card is read (R35's escapes counted for the delay);
        never while it holds a seat at another table (issue 33, finding 9: one account, two games)."""
        account = client.account_id
        self.check_not_seated(account)
        request = self._joining[account] = object()
        window = self.config.community.escape_window

        def joined(card: PlayerCard | BaseException) -> None:
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
                self.check_not_seated(account)  # sat down somewhere meanwhile
            except Fault as fault:
                reply(fault)
                return
            self.directory.keep_card(account, card)
            if self.shared is not None:
                self.shared.join(client, preferences, card, reply, bots)
                return
            reply(Answer())
            self.matchmaker.join(client, preferences, card, bots)

        self.services.read(lambda: self.store.player_card(account, window), joined)

    def leave(self, account_id: str) -> None:
        """Out of the queue (a quick play still reading its card joins no more)."""
        self._joining.pop(account_id, None)
        if self.shared is not None:
            self.shared.leave(account_id)
        else:
            self.matchmaker.leave(account_id)

    def with_bots(self, account_id: str, reply: Reply) -> None:
        """Fill the empty seats with bots (after the wait); ``reply`` says whether it could."""
        if self.shared is not None:
            self.shared.with_bots(account_id, reply)
            return
        self.matchmaker.with_bots(account_id)
        reply(Answer())

    def _open_rematch(
        self, people: Sequence[Person], preferences: Preferences, bots: bool, seated: Seated
    ) -> None:
        """A 再来一局 table: as quick play's, and on a cluster the people connected to other nodes
        are told there."""

        def told(table_id: str, seats: dict[str, int]) -> None:
            seated(table_id, seats)
            away = {a: s for a, s in seats.items() if not self.directory.connections(a)}
            if self.shared is not None and away:
                self.shared.seated_elsewhere(table_id, away)

        self._open_table(people, preferences, bots, told)

    def open_group(
        self, people: Sequence[Person], preferences: Preferences, bots: bool, seated: Seated
    ) -> None:
        """Seat a group formed elsewhere (a cluster's queue) at a new table of this server."""
        self._open_table(people, preferences, bots, seated)

    def check_not_seated(self, account_id: str) -> None:
        """Refused while the account holds a seat at a table not finished (waiting, between games or
        playing): quick play would seat it at a second game."""
        for seat in self.directory.seats_of(account_id):
            if seat["status"] != "finished":
                raise seated_elsewhere(seat["table"])

    def check_free(self, account_id: str) -> None:
        """Refused while the account holds a seat elsewhere (:meth:`check_not_seated`) or is being
        seated by quick play: one account, one game (再来一局 asks it too)."""
        if account_id in self._placing:
            raise Fault("seated_elsewhere", "quick play is seating you at a table; wait for it")
        self.check_not_seated(account_id)

    def waiting(self, account_id: str) -> bool:
        """Is the account in the quick-play queue (or joining it, or being seated by it)? On a cluster
        node, the queue of every node (issue 32: a ``sit`` at this node's table while it waits through
        another node is refused as on one node)."""
        if account_id in self._joining or account_id in self.matchmaker or account_id in self._placing:
            return True
        return self.shared is not None and self.shared.waiting(account_id)

    def _open_table(
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
        accounts = [account for account, _, _ in people]
        try:  # asked again here: no account at two games, whatever happened since it was matched
            for account in accounts:
                self.check_free(account)
        except Fault as fault:
            logs.failure("quick play: a player of the group is seated elsewhere", fault)
            return
        self._placing.update(accounts)
        table_id = short_id(8)
        table = self.factory.open(TableModel(table_id, creator=QUICK_PLAY, code=None, settings=settings))

        def done_seating(answer: Answer | BaseException) -> None:
            self._placing.difference_update(accounts)
            if isinstance(answer, BaseException):
                logs.failure("quick play: could not seat the group", answer, table=table_id)
                return
            seats = {a: s for a in accounts if (s := table.state.seat_of(a)) is not None}
            seated(table_id, seats)

        def created(answer: Answer | BaseException) -> None:
            if isinstance(answer, BaseException):
                self._placing.difference_update(accounts)
                logs.failure("quick play: could not create the table", answer, table=table_id)
                return
            for account in accounts:
                for client in list(self.directory.connections(account)):
                    self.directory.follow(client, table_id)
                    table.subscribe(client, None)
            table.seat_group(people, settings.bot_level if bots else None, done_seating)

        table.create(settings, created)


def seated_elsewhere(table_id: str) -> Fault:
    """Why quick play is refused to an account holding a seat at an unfinished table (finding 9)."""
    return Fault("seated_elsewhere", f"you hold a seat at table {table_id}; leave it first")


def _later(delay: float, callback: Callable[[], None]) -> asyncio.TimerHandle | None:
    """A timer on the running event loop (none outside one: in-process tests drive time themselves)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop.call_later(delay, callback)
