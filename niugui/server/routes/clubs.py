"""Clubs (俱乐部, issue 29): a club, its members and roles, its rooms and who is online where, its
recent sessions and its standings.

To anyone not a member a club does not exist: every route answers them ``404 no_club``, the same
answer as for a club that does not exist or a wrong invite code. The store is read and written in the
thread pool; the hub's directory (rooms, who is online) and the clubs' roster on the event loop.

>>> from datetime import datetime, timezone
>>> monday = period_start("week", datetime(2026, 12, 5, 12, tzinfo=timezone.utc).timestamp())
>>> datetime.fromtimestamp(monday, CHINA).isoformat()
'2026-11-30T00:00:00+08:00'
>>> datetime.fromtimestamp(period_start("month", 1764892800.0), CHINA).isoformat()
'2025-12-01T00:00:00+08:00'
>>> period_start("all", 0.0) is None
True
"""

from __future__ import annotations

import secrets
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from fastapi import APIRouter, Header, Query
from fastapi import Path as PathParam
from starlette.concurrency import run_in_threadpool

from .. import logs
from ..clubs_store import MANAGERS, ClubRow, ClubStore, Role
from ..cluster.rooms import Rooms
from ..creation import short_id
from ..http_errors import fail
from ..protocol import ClubCreate, ClubHandOver, ClubJoin, ClubRoleChange, ClubUpdate
from ..services import AppServices, AppServicesDep
from ..store import AccountRow
from ..tables import Fault as TableFault

router = APIRouter()

CHINA = timezone(timedelta(hours=8))
"""The standings' weeks and months begin at midnight in China (UTC+8), where the game is played."""
Period = Literal["week", "month", "all"]
ClubId = PathParam(max_length=16)
AccountId = PathParam(max_length=32)
TableId = PathParam(max_length=32)


def period_start(period: Period, now: float) -> float | None:
    """When this week (from Monday) or this month began, in China; None for all time."""
    if period == "all":
        return None
    day = datetime.fromtimestamp(now, CHINA).replace(hour=0, minute=0, second=0, microsecond=0)
    start = day - timedelta(days=day.weekday()) if period == "week" else day.replace(day=1)
    return start.timestamp()


def no_club(club_id: str) -> Exception:
    return fail(404, "no_club", f"no club {club_id!r}")


def signed_in(svc: AppServices, authorization: str | None) -> AccountRow:
    account = svc.account_of(authorization)
    if account is None:
        raise fail(401, "unauthorized", "missing, unknown or expired token")
    return account


def membership(svc: AppServices, club_id: str, authorization: str | None) -> tuple[AccountRow, ClubRow, Role]:
    """The asker, the club and the asker's role; 404 unless the asker is a member (pending: not yet).
    Reads the store: call it off the event loop."""
    account = signed_in(svc, authorization)
    clubs = ClubStore(svc.store.engine)
    club = clubs.club(club_id)
    role = None if club is None else clubs.role(club_id, account.id)
    if club is None or role is None or role == "pending":
        raise no_club(club_id)
    return account, club, role


def require(role: Role, allowed: tuple[Role, ...]) -> None:
    if role not in allowed:
        raise fail(403, "club_role", f"a club's {' or '.join(allowed)} only")


@router.post("/api/clubs")
async def create_club(
    body: ClubCreate, svc: AppServicesDep, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """A new club, owned by the registered account that asks (guests and bots join clubs, never own
    one). Answer: ``{"club": {..., "invite_code", "role": "owner"}}``."""
    name = body.name.strip()
    if not name:
        raise fail(422, "invalid_input", "name: must not be blank")
    limit = svc.config.limits.clubs_per_account

    def create() -> ClubRow:
        account = signed_in(svc, authorization)
        if account.username is None or account.bot:
            raise fail(403, "registered_only", "only a registered account owns a club; register first")
        clubs = ClubStore(svc.store.engine)
        if limit and len(clubs.clubs_of(account.id)) >= limit:
            raise fail(403, "club_limit", f"an account belongs to {limit} clubs at most")
        return clubs.create(short_id(8), account.id, name, body.description.strip(), short_id(8))

    club = await run_in_threadpool(create)
    roster = svc.hub.directory.roster
    roster.put_club(club.id, club.preset)
    roster.set_role(club.id, club.owner, "owner")
    logs.info("club created", club=club.id)
    return {"club": {**club.public(with_code=True), "role": "owner"}}


@router.get("/api/me/clubs")
def my_clubs(svc: AppServicesDep, authorization: str | None = Header(None)) -> dict[str, Any]:
    """The clubs you belong to, with your role (``pending``: a request not yet approved)."""
    account = signed_in(svc, authorization)
    return {"clubs": ClubStore(svc.store.engine).clubs_of(account.id)}


@router.get("/api/clubs/{club_id}")
async def club_page(
    svc: AppServicesDep, club_id: str = ClubId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """A club's page, for its members: the club (with its invite code), your role, its members with
    who is online and at which of its rooms, its open rooms (with their join codes) and its recent
    sessions (each table's totals; the session itself: ``GET /api/tables/{id}/session``)."""

    def read() -> tuple[AccountRow, ClubRow, Role, list[dict[str, Any]], list[dict[str, Any]]]:
        account, club, role = membership(svc, club_id, authorization)
        clubs = ClubStore(svc.store.engine)
        sessions = clubs.sessions(club_id)
        names = svc.store.table_names(s["table"] for s in sessions)
        for s in sessions:
            s["name"] = names.get(s["table"], "")
        return account, club, role, clubs.members(club_id), sessions

    account, club, role, members, sessions = await run_in_threadpool(read)
    directory = svc.hub.directory
    rooms = directory.club_rooms(club_id)
    seated = {
        p.id: room.id
        for room in rooms
        for p in (s.player for s in room.state.seats)
        if p is not None and p.id
    }
    if role not in MANAGERS:
        members = [m for m in members if m["role"] != "pending"]
    for m in members:
        m["online"] = bool(directory.connections(m["account_id"]))
        m["table"] = seated.get(m["account_id"])
    if svc.node is not None:  # a cluster: members connected to, and seated at, any node (issue 32)
        found = await svc.node.features.members_where(club_id, [m["account_id"] for m in members])
        for m in members:
            online, table = found[m["account_id"]]
            m["online"] = m["online"] or online
            m["table"] = m["table"] or table
    # a member is shown the rooms' join codes (may_know_code is the creator's and players' only)
    summaries = [{**r.fanout.summary(r.state, account.id).model_dump(), "code": r.state.code} for r in rooms]
    if svc.node is not None:  # a cluster: the club's rooms on the other nodes too (issue 32)
        summaries += await svc.node.features.rooms.with_codes(club_id, {r.id for r in rooms})
    return {
        "club": {**club.public(with_code=True), "role": role},
        "members": members,
        "rooms": summaries,
        "sessions": sessions,
    }


@router.patch("/api/clubs/{club_id}")
async def update_club(
    body: ClubUpdate, svc: AppServicesDep, club_id: str = ClubId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """The owner changes the club's name, description, whether it takes requests, or its rooms'
    preset (the rule settings every new room of the club carries)."""
    fields = body.model_dump(exclude_none=True)
    if body.preset is not None:
        fields["preset"] = body.preset.model_dump(exclude_none=True)

    def write() -> ClubRow:
        _account, _club, role = membership(svc, club_id, authorization)
        require(role, ("owner",))
        clubs = ClubStore(svc.store.engine)
        if fields:
            clubs.update(club_id, **fields)
        found = clubs.club(club_id)
        assert found is not None
        return found

    club = await run_in_threadpool(write)
    svc.hub.directory.roster.put_club(club.id, club.preset)
    return {"club": {**club.public(with_code=True), "role": "owner"}}


@router.post("/api/clubs/{club_id}/join")
async def join_club(
    svc: AppServicesDep,
    body: ClubJoin | None = None,
    club_id: str = ClubId,
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """Join with the invite code (any account, guests too); without a code, ask to join a club that
    takes requests (``role: pending`` until the owner or an admin approves). A wrong code, or no code
    at a club that takes no requests: 404, as for no club."""
    limits = svc.config.limits
    given = None if body is None else body.code

    def join() -> tuple[str, Role]:
        account = signed_in(svc, authorization)
        clubs = ClubStore(svc.store.engine)
        club = clubs.club(club_id)
        if club is None:
            raise no_club(club_id)
        right = given is not None and _same(given, club.invite_code)
        if not right and not (given is None and club.by_request):
            raise no_club(club_id)
        role = clubs.role(club_id, account.id)
        if role is not None and role != "pending":
            return account.id, role  # a member already
        if role is None:
            if limits.club_members and clubs.count_members(club_id) >= limits.club_members:
                raise fail(403, "club_limit", f"a club has {limits.club_members} members at most")
            if limits.clubs_per_account and len(clubs.clubs_of(account.id)) >= limits.clubs_per_account:
                raise fail(
                    403, "club_limit", f"an account belongs to {limits.clubs_per_account} clubs at most"
                )
        new: Role = "member" if right else "pending"
        clubs.set_role(club_id, account.id, new)
        return account.id, new

    account_id, role = await run_in_threadpool(join)
    svc.hub.directory.roster.set_role(club_id, account_id, role)
    return {"club": club_id, "role": role}


@router.post("/api/clubs/{club_id}/members/{account_id}")
async def set_member_role(
    body: ClubRoleChange,
    svc: AppServicesDep,
    club_id: str = ClubId,
    account_id: str = AccountId,
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """Approve a request to join (the owner or an admin: ``member``), or make a member an admin or an
    admin a member (the owner only)."""

    def write() -> Role:
        _account, _club, role = membership(svc, club_id, authorization)
        clubs = ClubStore(svc.store.engine)
        theirs = clubs.role(club_id, account_id)
        if theirs is None:
            raise fail(404, "no_player", f"no member or request {account_id!r}")
        if theirs == "pending" and body.role == "member":
            require(role, MANAGERS)
        else:
            require(role, ("owner",))
            if theirs == "owner":
                raise fail(403, "club_role", "the owner hands the club over instead")
        clubs.set_role(club_id, account_id, body.role)
        return body.role

    role = await run_in_threadpool(write)
    svc.hub.directory.roster.set_role(club_id, account_id, role)
    return {"club": club_id, "account_id": account_id, "role": role}


@router.delete("/api/clubs/{club_id}/members/{account_id}")
async def remove_member(
    svc: AppServicesDep,
    club_id: str = ClubId,
    account_id: str = AccountId,
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """A member leaves (their own id), or the owner or an admin removes a member or refuses a request
    (an admin removes members only). The owner hands the club over before leaving. Whoever is no
    longer a member loses their seats at the club's rooms: between games at once, during a game when
    it is over (``seat_left`` / ``leaving`` with reason ``removed``; never an escape)."""

    def write() -> None:
        account, _club, role = membership(svc, club_id, authorization)
        clubs = ClubStore(svc.store.engine)
        theirs = clubs.role(club_id, account_id)
        if theirs is None:
            raise fail(404, "no_player", f"no member or request {account_id!r}")
        if theirs == "owner":
            raise fail(403, "club_role", "the owner hands the club over before leaving it")
        if account_id != account.id:
            require(role, MANAGERS if theirs in ("member", "pending") else ("owner",))
        clubs.remove(club_id, account_id)

    await run_in_threadpool(write)
    svc.hub.directory.roster.set_role(club_id, account_id, None)
    svc.hub.left_club(club_id, account_id)  # unseated from the club's rooms (those of other nodes: theirs)
    return {"club": club_id, "account_id": account_id, "removed": True}


@router.post("/api/clubs/{club_id}/owner")
async def hand_over(
    body: ClubHandOver, svc: AppServicesDep, club_id: str = ClubId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """The owner hands the club to one of its members, and stays as an admin."""

    def write() -> str:
        account, _club, role = membership(svc, club_id, authorization)
        require(role, ("owner",))
        clubs = ClubStore(svc.store.engine)
        if clubs.role(club_id, body.account_id) not in ("member", "admin"):
            raise fail(404, "no_player", f"no member {body.account_id!r}")
        new = svc.store.account(body.account_id)
        if new is None or new.username is None or new.bot:
            raise fail(403, "registered_only", "only a registered account owns a club")
        clubs.hand_over(club_id, account.id, body.account_id)
        return account.id

    old = await run_in_threadpool(write)
    roster = svc.hub.directory.roster
    roster.set_role(club_id, old, "admin")
    roster.set_role(club_id, body.account_id, "owner")
    return {"club": club_id, "owner": body.account_id}


@router.delete("/api/clubs/{club_id}/rooms/{table_id}")
async def close_room(
    svc: AppServicesDep,
    club_id: str = ClubId,
    table_id: str = TableId,
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """The owner or an admin closes one of the club's rooms that is not in play (its games stay)."""
    _account, _club, role = await run_in_threadpool(membership, svc, club_id, authorization)
    require(role, MANAGERS)
    table = svc.hub.tables.get(table_id)
    if table is None and svc.node is not None:  # a cluster: the room's owner closes it (issue 32)
        return await close_elsewhere(svc.node.features.rooms, club_id, table_id)
    if table is None or table.state.settings.club != club_id or table.state.status == "finished":
        raise fail(404, "no_table", f"no open room {table_id!r} in this club")
    try:
        svc.hub.close_abandoned(table_id)
    except TableFault as fault:
        raise fail(409, "room_in_play", str(fault)) from None
    return {"club": club_id, "table": table_id, "closed": True}


async def close_elsewhere(rooms: Rooms, club_id: str, table_id: str) -> dict[str, Any]:
    """Close a club's room another node holds, answered as on one node."""
    try:
        closed = await rooms.close_anywhere(table_id, club_id)
    except TimeoutError:
        raise fail(503, "busy", "the room's server did not answer; try again") from None
    if closed is None or closed.outcome == "no_table":
        raise fail(404, "no_table", f"no open room {table_id!r} in this club")
    if closed.outcome == "room_in_play":
        raise fail(409, "room_in_play", closed.message)
    return {"club": club_id, "table": table_id, "closed": True}


@router.get("/api/clubs/{club_id}/leaderboard")
def club_leaderboard(
    svc: AppServicesDep,
    club_id: str = ClubId,
    period: Period = "week",
    limit: int = Query(100, ge=1, le=500),
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """The club's standings: players by total points in the club's rooms over this week, this month
    (from their first day at midnight in China) or all time; only the club's sessions count."""
    membership(svc, club_id, authorization)
    since = period_start(period, time.time())
    return {
        "club": club_id,
        "period": period,
        "since": since,
        "players": ClubStore(svc.store.engine).standings(club_id, since, limit),
    }


def _same(given: str, code: str) -> bool:
    """Whether ``given`` is the invite ``code`` (compared in constant time)."""
    return secrets.compare_digest(given.encode(), code.encode())
