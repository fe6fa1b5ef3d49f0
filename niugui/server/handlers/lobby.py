"""Handlers of the messages that name no table: the lobby, new tables and quick play."""

from __future__ import annotations

from ..dispatch import Desk
from ..lobby import LobbyQuery
from ..matchmaking import Preferences
from ..protocol import (
    Auth,
    CreateTable,
    LeaveQueue,
    ListTables,
    Ping,
    PlayEvent,
    Prebuilt,
    QueueBots,
    QuickPlay,
    TableSettings,
)
from ..tables import Answer, Client, Fault, Reply, Table, is_bot_account


def auth(_desk: Desk, _client: Client, _message: Auth, _reply: Reply) -> None:
    """``auth`` is a connection's first message only (the transport reads it before any other)."""
    raise Fault("bad_state", "this connection is authenticated already")


def ping(_desk: Desk, _client: Client, _message: Ping, reply: Reply) -> None:
    reply(Answer())


def list_tables(desk: Desk, _client: Client, message: ListTables, reply: Reply) -> None:
    """A page of the lobby, serialized once and shared by every asker for a moment."""
    query = LobbyQuery(message.offset, message.limit, message.status, message.free_seats, message.bot_level)
    reply(Answer(data=Prebuilt(desk.listing.page(query))))


def create_table(
    desk: Desk, client: Client, message: CreateTable, reply: Reply, table_id: str | None = None
) -> None:
    """``table_id``: the id a cluster node named the table by (:mod:`niugui.server.cluster.node`
    creates every table through here, so a club's room is checked there too)."""
    new_table(desk, client, message.settings, reply, table_id)


def new_table(
    desk: Desk, client: Client, settings: TableSettings, reply: Reply, table_id: str | None = None
) -> Table:
    """A new table, with a club's room checked (issue 29): the one path of ``create_table`` and of
    :meth:`niugui.server.hub.Hub.create_table`. A :class:`Fault` when it may not be made."""
    if settings.club is None:
        return desk.factory.create(client, settings, reply, table_id)
    club = settings.club
    settings = desk.club_rooms.settings(client.account_id, settings)  # a club's room (issue 29)
    table = desk.factory.create(client, settings, reply, table_id)
    desk.club_rooms.record(table.id, club)
    return table


def quick_play(desk: Desk, client: Client, message: QuickPlay, reply: Reply) -> None:
    if is_bot_account(client):
        raise Fault("forbidden", "bot accounts do not join quick play; a table's creator invites them")
    desk.quick.join(client, Preferences(message.turn_seconds, message.games), reply, message.bots)


def leave_queue(desk: Desk, client: Client, _message: LeaveQueue, reply: Reply) -> None:
    reply(Answer())
    desk.quick.leave(client.account_id)


def queue_bots(desk: Desk, client: Client, _message: QueueBots, reply: Reply) -> None:
    desk.quick.with_bots(client.account_id, reply)


def play_event(desk: Desk, client: Client, message: PlayEvent, reply: Reply) -> None:
    """Your next table of an event (issue 30); ack data: the table's summary. On a cluster the table
    opens on the entrant's node (leased by its first write, as quick play's); the event, its entries
    and results are the database's, so any node serves them."""
    desk.events.play(client, message.event, reply)
