"""Invitations: a table's creator offers a seat to a connected bot account, whose every connection
gets an ``invitation`` frame (and takes the seat with ``sit``)."""

from __future__ import annotations

from . import logs
from .directory import Directory
from .protocol import Invitation, Invite
from .tables import Client, Fault, Reply, Table


def invite(directory: Directory, client: Client, table: Table, message: Invite, reply: Reply) -> None:
    """Hold a seat of ``table`` for the bot account ``message.username`` and tell its connections."""
    guests = directory.bot_connections(message.username)
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
