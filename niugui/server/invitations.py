"""Invitations: a table's creator offers a seat to a connected bot account, or anyone at a table
offers one to a friend; every connection of the guest gets an ``invitation`` frame (and takes the
seat with ``sit``). Friendships and blocks are the directory's copy (:class:`~.friends_store.Social`),
read when each account connected and kept current by the friends' routes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import logs
from .directory import Directory
from .protocol import Invitation, Invite
from .tables import Client, Fault, Reply, Table


def invite(directory: Directory, client: Client, table: Table, message: Invite, reply: Reply) -> None:
    """Hold out a seat of ``table`` to the bot account ``message.username`` or to the friend
    ``message.friend``, and tell the guest's connections (on a cluster: wherever they are)."""
    if directory.elsewhere is not None and not _all_here(directory, client, message):
        directory.elsewhere.invite(client, table, message, reply)
        return
    if message.friend is not None:
        invite_friend(directory, client, table, message.friend, message.seat, reply)
        return
    username = message.username or ""
    guests = list(directory.bot_connections(username))
    if not guests:
        raise Fault("bot_offline", f"no bot account {username!r} is connected; start its client")
    table.invite(client, guests[0].account_id, message.seat, _notify(client, table, guests, False), reply)


def invite_friend(
    directory: Directory, client: Client, table: Table, friend: str, seat: int | None, reply: Reply
) -> None:
    """Invite the friend ``friend`` (an account id) to ``table``: only a friend, and never one who
    blocks the inviter (who is answered as if they were offline, so a block is not revealed)."""
    if friend not in directory.social(client.account_id).friends:
        raise Fault("not_friends", "you can invite only your friends")
    guests = list(directory.connections(friend))
    if not guests or directory.blocks(friend, client.account_id):
        raise Fault("friend_offline", "that friend is not connected now")
    table.invite(client, friend, seat, _notify(client, table, guests, True), reply, friend=True)


def _all_here(directory: Directory, client: Client, message: Invite) -> bool:
    """Whether everything an invitation needs is on this server: the guest's connections, and for a
    friend's, the inviter's friends and the friend's blocks."""
    if message.friend is None:
        return bool(directory.bot_connections(message.username or ""))
    return bool(directory.connections(client.account_id)) and bool(directory.connections(message.friend))


def invitation_frame(client: Client, table: Table, seat: int, friend: bool) -> str:
    """The ``invitation`` frame a guest gets (``friend``: it names the inviter's account)."""
    state = table.state
    return Invitation(
        type="invitation",
        table=table.id,
        seat=seat,
        code=state.code,
        by=client.nickname,
        by_id=client.account_id if friend else None,
        settings=state.settings,
    ).model_dump_json()


def _notify(client: Client, table: Table, guests: Sequence[Client], friend: bool) -> Callable[[int], None]:
    """What tells every connection of the guest, once the seat is chosen."""

    def notify(seat: int) -> None:
        frame = invitation_frame(client, table, seat, friend)
        for guest in guests:
            guest.send(frame)
        logs.info("friend invited" if friend else "bot account invited", table=table.id, seat=seat)

    return notify
