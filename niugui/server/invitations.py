"""Invitations: a table's creator offers a seat to a connected bot account, or anyone at a table
offers one to a friend; every connection of the guest gets an ``invitation`` frame (and takes the
seat with ``sit``). Friendships and blocks are the directory's copy (:class:`~.friends_store.Social`),
read when each account connected and kept current by the friends' routes.

A bot account is invited only with its owner's consent (issue 33, finding 6): who may invite it
(nobody, its friends, anyone) and to at most how many unfinished tables at once
(``PUT /api/me/invitations``, kept in its ``Social``). The cap holds at ``sit`` too, so invitations
sent at once do not all land."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import logs
from .directory import Directory
from .protocol import Invitation, Invite
from .tables import Answer, Client, Fault, Reply, Table


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
    if directory.blocks(guests[0].account_id, client.account_id):  # answered as offline: not revealed
        raise Fault("bot_offline", f"no bot account {username!r} is connected; start its client")
    if not may_invite(directory, client.account_id, guests[0].account_id):
        raise Fault("not_invitable", f"the owner of {username!r} does not let you invite it")
    check_tables(directory, guests[0].account_id, table.id)
    table.invite(client, guests[0].account_id, message.seat, _notify(client, table, guests, False), reply)


def may_invite(directory: Directory, inviter: str, guest: str) -> bool:
    """Does ``guest``'s consent (``invitable_by``: nobody, friends, anyone) let ``inviter`` invite it?
    One rule for both ways of inviting (a bot account by name, a friend); a block is checked apart,
    where it is answered as offline.

    >>> from niugui.server.friends_store import Social
    >>> class Known:  # what may_invite reads of a directory: g lets only its friend f invite it
    ...     def social(self, account_id): return Social(frozenset({"f"}), invite_from="friends")
    >>> may_invite(Known(), "f", "g"), may_invite(Known(), "x", "g")
    (True, False)
    """
    consent = directory.social(guest)
    friends = consent.invite_from == "friends" and inviter in consent.friends
    return consent.invite_from == "anyone" or friends


def check_tables(directory: Directory, bot_id: str, table_id: str) -> None:
    """Refused when the bot account ``bot_id`` holds seats at as many unfinished tables (other than
    ``table_id``) as its owner allows (on ``invite``, and on the bot's own ``sit``)."""
    held = {s["table"] for s in directory.seats_of(bot_id) if s["status"] != "finished"}
    held = (held | directory.claims(bot_id)) - {table_id}  # sits in flight count too
    if len(held) >= directory.social(bot_id).invite_tables:
        raise Fault("invite_limit", "that bot account is at as many tables as its owner allows")


def claim_seat(directory: Directory, bot_id: str, table_id: str, reply: Reply) -> Reply:
    """A bot account's ``sit`` at ``table_id``: refused past its owner's cap (:func:`check_tables`),
    else counted as held until its answer (the directory knows the seat only once it is stored); the
    reply that gives the claim back. The cap is per node: a bot account connected to one node."""
    check_tables(directory, bot_id, table_id)
    directory.claim(bot_id, table_id)

    def answered(answer: Answer | BaseException) -> None:
        directory.release(bot_id, table_id)
        reply(answer)

    return answered


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
    if not may_invite(directory, client.account_id, friend):  # a bot account befriended: its consent too
        raise Fault("not_invitable", "that account's owner does not let you invite it")
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
