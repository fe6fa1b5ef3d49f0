"""Handlers of the messages about one table (found and checked by the route, :func:`table_route`)."""

from __future__ import annotations

from ..directory import facts_of
from ..dispatch import Desk
from ..events.base import is_event_table
from ..invitations import claim_seat
from ..invitations import invite as invite_guest
from ..protocol import (
    Autoplay,
    Chat,
    Dissolve,
    FillBots,
    FreeSeat,
    Invite,
    Leave,
    Pass,
    Play,
    Ready,
    Rematch,
    Sit,
    Stand,
    UpdateSettings,
    Watch,
)
from ..tables import Answer, Client, Fault, Reply, Table, is_bot_account
from ..visibility import may_see


def play(_desk: Desk, client: Client, table: Table, message: Play, reply: Reply) -> None:
    table.act(client, message.cards, reply)


def pass_(_desk: Desk, client: Client, table: Table, _message: Pass, reply: Reply) -> None:
    table.act(client, None, reply)


def _check_code(desk: Desk, client: Client, table: Table, ref: str, code: str | None) -> None:
    """Watching or sitting at a private table takes its code (given, or as the table's name); at a
    club's room, membership of the club."""
    facts = facts_of(table)
    given = code if code is not None else (ref if facts.code_is(ref) else None)
    if not may_see(facts, client.account_id, given, clubs=desk.directory.clubs_of(client.account_id)):
        raise Fault("not_found", f"no table {table.id!r}, or not with that join code")


def watch(desk: Desk, client: Client, table: Table, message: Watch, reply: Reply) -> None:
    _check_code(desk, client, table, message.table, message.code)
    spectator = table.state.seat_of(client.account_id) is None
    if spectator and not desk.club_rooms.allows(table.state.settings.club, "spectators"):
        raise Fault("forbidden", "this club's rooms take no spectators; sit down to join in")
    if spectator and is_event_table(table.state.creator):  # a board is nobody else's (issue 30)
        raise Fault("forbidden", "an event's tables take no spectators")
    desk.directory.follow(client, table.id)
    table.subscribe(client, message.last_seq, reply)


def sit(desk: Desk, client: Client, table: Table, message: Sit, reply: Reply) -> None:
    _check_code(desk, client, table, message.table, message.code)
    if desk.quick.waiting(client.account_id) and table.state.seat_of(client.account_id) is None:
        raise Fault("seated_elsewhere", "you wait in quick play; leave the queue before you sit")  # finding 9
    bot = is_bot_account(client)
    if bot:  # a bot account sits where its owner's cap allows, sits in flight counted (issue 33)
        reply = claim_seat(desk.directory, client.account_id, table.id, reply)
    desk.directory.follow(client, table.id)
    try:
        table.sit(client, message.seat, reply, desk.directory.card(client.account_id))
    except BaseException:
        if bot:
            desk.directory.release(client.account_id, table.id)
        raise


def stand(_desk: Desk, client: Client, table: Table, _message: Stand, reply: Reply) -> None:
    table.stand(client, reply)


def leave(desk: Desk, client: Client, table: Table, _message: Leave, reply: Reply) -> None:
    desk.directory.unfollow(client, table.id)
    table.leave(client, reply)


def ready(_desk: Desk, client: Client, table: Table, _message: Ready, reply: Reply) -> None:
    table.ready(client, reply)


def autoplay(_desk: Desk, client: Client, table: Table, message: Autoplay, reply: Reply) -> None:
    table.set_autoplay(client, message.on, reply)


def fill_bots(desk: Desk, client: Client, table: Table, _message: FillBots, reply: Reply) -> None:
    if not desk.club_rooms.allows(table.state.settings.club, "bots"):
        raise Fault("forbidden", "this club's rooms are for people only (no bots)")
    table.fill_bots(client, reply)


def free_seat(_desk: Desk, client: Client, table: Table, message: FreeSeat, reply: Reply) -> None:
    table.free_seat(client, message.seat, reply)


def update_settings(_desk: Desk, client: Client, table: Table, message: UpdateSettings, reply: Reply) -> None:
    table.update_settings(client, message.settings, reply)


def invite(desk: Desk, client: Client, table: Table, message: Invite, reply: Reply) -> None:
    invite_guest(desk.directory, client, table, message, reply)


def chat(_desk: Desk, client: Client, table: Table, message: Chat, reply: Reply) -> None:
    table.chat(client, message.phrase, reply)


def rematch(desk: Desk, client: Client, table: Table, _message: Rematch, reply: Reply) -> None:
    """再来一局: ask to play again with the people of a finished quick-play table."""
    desk.quick.rematches.ask(client, table)
    reply(Answer())


def dissolve(_desk: Desk, client: Client, table: Table, message: Dissolve, reply: Reply) -> None:
    table.dissolve(client, message.agree, reply)
