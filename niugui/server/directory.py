"""The directory of one server: its tables in memory, who is connected, and which tables each
connection follows. Every other module reads and changes these through its methods (no module
writes another's dicts).

>>> directory = Directory()
>>> directory.find("nope") is None
True
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from .clubs import Roster
from .friends_store import Social
from .protocol import Invite, TableSummary
from .store import PlayerCard
from .tables import Client, Reply, Table
from .tables.fanout import table_facts
from .visibility import TableFacts


def facts_of(table: Table) -> TableFacts:
    """What the visibility rule needs of a table in memory (its players: those seated now)."""
    return table_facts(table.state)


class Elsewhere(Protocol):
    """The accounts connected to the other nodes of a cluster (niugui/server/cluster/features.py)."""

    def invite(self, client: Client, table: Table, message: Invite, reply: Reply) -> None:
        """An invitation whose guest (or inviter) is connected to another node."""

    def blocks(self, reader: str, author: str) -> bool:
        """Whether ``reader``, connected to another node, blocks ``author``."""


class Directory:
    """Tables by id (and by join code), connections by account, and each connection's tables."""

    def __init__(self) -> None:
        self._tables: dict[str, Table] = {}
        self._quarantined: dict[str, str] = {}
        self._following: dict[Client, set[str]] = {}  # connection -> tables it is subscribed to
        self._by_account: dict[str, set[Client]] = {}
        self._cards: dict[str, PlayerCard] = {}
        self._social: dict[str, Social] = {}  # connected accounts' friends and blocks
        self._bots: dict[str, dict[Client, None]] = {}  # bot accounts' connections, by lower-case name
        self._bot_names: dict[Client, str] = {}
        self._claims: dict[str, set[str]] = {}  # bot account -> tables where a sit is in flight
        self.roster = Roster()
        """Clubs' members and presets (issue 29), for the visibility rule and club rooms."""
        self.elsewhere: Elsewhere | None = None
        """On a cluster node: invitations to accounts connected to other nodes (issue 32)."""

    # ---- tables -----------------------------------------------------------------------------------

    @property
    def tables(self) -> dict[str, Table]:
        """The tables in memory, by id: read it; change it through :meth:`add` and :meth:`remove`."""
        return self._tables

    @property
    def quarantined(self) -> dict[str, str]:
        """Tables whose stored events did not replay at the start: id → the error's type."""
        return self._quarantined

    def add(self, table: Table) -> None:
        self._tables[table.id] = table

    def replace(self, broken: Table, table: Table) -> bool:
        """Put ``table`` where ``broken`` is; False (and nothing done) when ``broken`` is gone."""
        if self._tables.get(broken.id) is not broken:
            return False
        self._tables[table.id] = table
        return True

    def remove(self, table_id: str) -> Table | None:
        """Forget a table (and who followed it); the table itself is returned, not closed."""
        table = self._tables.pop(table_id, None)
        if table is not None:
            for client in table.take_subscribers():
                self._following.get(client, set()).discard(table_id)
        return table

    def quarantine(self, table_id: str, reason: str) -> None:
        self._quarantined[table_id] = reason

    def find(self, ref: str, by_code: bool = False) -> Table | None:
        """The table with id ``ref`` or, when ``by_code``, the private table whose join code it is."""
        table = self._tables.get(ref)
        if table is None and by_code:
            table = next((t for t in self._tables.values() if facts_of(t).code_is(ref)), None)
        return table

    def created_by(self, account_id: str) -> int:
        """Unfinished tables ``account_id`` created."""
        return sum(
            1 for t in self._tables.values() if t.state.creator == account_id and t.state.status != "finished"
        )

    def seats_of(self, account_id: str) -> list[dict[str, Any]]:
        """Where an account holds a seat here: table id, seat, the table's name and status (a
        finished table holds nobody: its session is over, its settlement is in the history)."""
        found: list[dict[str, Any]] = []
        for table in self._tables.values():
            state = table.state
            seat = state.seat_of(account_id)
            if seat is not None and state.status != "finished":
                found.append(
                    {"table": table.id, "seat": seat, "name": state.settings.name, "status": state.status}
                )
        return found

    def public(self, account_id: str | None = None) -> list[TableSummary]:
        """The summaries of the public tables not finished (never a club's room)."""
        return [
            t.fanout.summary(t.state, account_id)
            for t in self._tables.values()
            if not t.state.settings.private and t.state.settings.club is None and t.state.status != "finished"
        ]

    def clubs_of(self, account_id: str | None) -> frozenset[str]:
        """The clubs where the account is a member (for :func:`niugui.server.visibility.may_see`)."""
        return self.roster.clubs_of(account_id)

    def club_rooms(self, club: str) -> list[Table]:
        """The club's rooms in memory that are not finished."""
        return [
            t for t in self._tables.values() if t.state.settings.club == club and t.state.status != "finished"
        ]

    # ---- connections ------------------------------------------------------------------------------

    def connect(self, client: Client, bot_username: str | None = None) -> None:
        self._following[client] = set()
        self._by_account.setdefault(client.account_id, set()).add(client)
        if bot_username is not None:
            name = self._bot_names[client] = bot_username.lower()
            self._bots.setdefault(name, {})[client] = None

    def disconnect(self, client: Client) -> bool:
        """Forget a connection (unsubscribed from its tables); True when it was its account's last."""
        last = False
        mine = self._by_account.get(client.account_id)
        if mine is not None:
            mine.discard(client)
            if not mine:
                del self._by_account[client.account_id]
                self._cards.pop(client.account_id, None)
                self._social.pop(client.account_id, None)
                last = True
        name = self._bot_names.pop(client, None)
        if name is not None:
            connections = self._bots[name]
            connections.pop(client, None)
            if not connections:
                del self._bots[name]
        for table_id in self._following.pop(client, set()):
            table = self._tables.get(table_id)
            if table is not None:
                table.unsubscribe(client)
        return last

    def connections(self, account_id: str) -> set[Client]:
        return self._by_account.get(account_id, set())

    def claims(self, account_id: str) -> set[str]:
        """The tables where ``account_id`` (a bot account) has a ``sit`` in flight: counted under its
        owner's cap with the seats it holds, so sits sent together cannot all pass (review of finding 6).

        >>> d = Directory()
        >>> d.claim("bot", "t1"); d.claims("bot")
        {'t1'}
        >>> d.release("bot", "t1"); d.claims("bot")
        set()
        """
        return set(self._claims.get(account_id, ()))

    def claim(self, account_id: str, table_id: str) -> None:
        self._claims.setdefault(account_id, set()).add(table_id)

    def release(self, account_id: str, table_id: str) -> None:
        mine = self._claims.get(account_id)
        if mine is not None:
            mine.discard(table_id)
            if not mine:
                del self._claims[account_id]

    def bot_connections(self, username: str) -> list[Client]:
        """The connections of the bot account ``username`` (any case)."""
        return list(self._bots.get(username.lower(), ()))

    def follow(self, client: Client, table_id: str) -> None:
        """``client`` is subscribed to ``table_id`` (to unsubscribe it when it goes)."""
        self._following.setdefault(client, set()).add(table_id)

    def unfollow(self, client: Client, table_id: str) -> None:
        self._following.get(client, set()).discard(table_id)

    def follows(self, client: Client, table_id: str) -> bool:
        return table_id in self._following.get(client, ())

    def card(self, account_id: str) -> PlayerCard | None:
        """What seats show of a connected account (rating, escape rate), read when it connected."""
        return self._cards.get(account_id)

    def keep_card(self, account_id: str, card: PlayerCard) -> None:
        self._cards[account_id] = card

    def social(self, account_id: str) -> Social:
        """A connected account's friends and blocks (read when it connected, kept up to date by the
        friends' routes); empty for an account not connected here."""
        return self._social.get(account_id, Social())

    def keep_social(self, account_id: str, social: Social) -> None:
        """Remember a connected account's friends and blocks (nothing kept for one not connected)."""
        if account_id in self._by_account:
            self._social[account_id] = social

    def blocks(self, reader: str, author: str) -> bool:
        """Whether ``reader`` blocks ``author`` (their chat and invitations do not reach ``reader``).

        >>> directory = Directory()
        >>> directory.blocks("ann", "bob")
        False
        """
        found = self._social.get(reader)
        if found is None and self.elsewhere is not None:  # connected to another node of a cluster
            return self.elsewhere.blocks(reader, author)
        return found is not None and author in found.blocks

    def open_tables(self) -> Iterator[tuple[str, str, str]]:
        """(table id, creator, bot level) of every table in memory that is not finished."""
        for t in self._tables.values():
            if t.state.status != "finished":
                yield t.id, t.state.creator, t.state.settings.bot_level

    def activity(self) -> Iterator[tuple[str, str, float, int]]:
        """(table id, status, time of its last event, connections subscribed) of every table."""
        for t in list(self._tables.values()):
            yield t.id, t.state.status, t.state.time, len(t.fanout.subscribers)
