"""Friends (issue 29, point 6): friend requests and friendships, the friends list with who is online
and where, the people you played with lately, and blocks. Every route needs a session.

Presence comes from the hub's directory, read on the event loop only; the store is read in the
thread pool (:mod:`niugui.server.friends_store`). Where a friend sits is shown only as the
visibility rule allows the asker (:mod:`niugui.server.visibility`): a private table they may not see
is ``{"private": true}`` with no id or name. Nothing of a hand is in any answer.

On a cluster, presence is this node's: a friend connected to another node shows as offline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Header
from fastapi import Path as PathParam
from starlette.concurrency import run_in_threadpool

from ..directory import facts_of
from ..friends_store import Friends, Social, Standing, friends_of
from ..http_errors import fail
from ..services import AppServices, AppServicesDep
from ..store import AccountRow
from ..visibility import may_see

router = APIRouter()

AccountId = PathParam(min_length=1, max_length=32, description="the other account's id")


@router.get("/api/me/friends")
async def my_friends(svc: AppServicesDep, authorization: str | None = Header(None)) -> dict[str, Any]:
    """``{"friends": [{"account_id", "nickname", "online", "where"}], "incoming": [...],
    "outgoing": [...], "blocked": [...]}``: your friends (with where each sits now), the requests to
    you, yours not yet answered, and whom you block."""

    def read(authorization: str | None) -> tuple[AccountRow, dict[str, list[dict[str, Any]]]]:
        account = signed_in(svc, authorization)
        return account, friends_of(svc.store).lists(account.id)

    account, lists = await run_in_threadpool(read, authorization)
    if svc.node is not None:  # a cluster: wherever each friend is connected and sits (issue 32)
        found = await svc.node.features.friends_where([f["account_id"] for f in lists["friends"]], account.id)
        for friend in lists["friends"]:
            friend.update(found[friend["account_id"]])
        return lists
    for friend in lists["friends"]:  # on the event loop: the directory is the loop's
        friend.update(presence(svc, friend["account_id"], account.id))
    return lists


@router.get("/api/me/recent")
async def my_recent(svc: AppServicesDep, authorization: str | None = Header(None)) -> dict[str, Any]:
    """``{"players": [{"account_id", "nickname", "played_at", "friend"}]}``: the last 20 people you
    finished a game with, newest first (games still in progress are not counted)."""

    def read(authorization: str | None) -> tuple[list[dict[str, Any]], Social]:
        account = signed_in(svc, authorization)
        friends = friends_of(svc.store)
        return friends.recent(account.id), friends.social(account.id)

    players, social = await run_in_threadpool(read, authorization)
    for player in players:
        player["friend"] = player["account_id"] in social.friends
    return {"players": players}


@router.post("/api/friends/{account_id}")
async def ask(
    svc: AppServicesDep, account_id: str = AccountId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """Ask ``account_id`` to be friends, or accept their request: ``{"status": "requested" |
    "friends"}``. 404 ``no_player`` for no such account."""

    def write(authorization: str | None) -> tuple[Standing, dict[str, Social]]:
        me = other_than(svc, authorization, account_id)
        standing = friends_of(svc.store).ask(me.id, account_id)
        return standing, socials(svc, me.id, account_id)

    standing, changed = await run_in_threadpool(write, authorization)
    keep(svc, changed)
    return {"status": standing}


@router.delete("/api/friends/{account_id}")
async def unfriend(
    svc: AppServicesDep, account_id: str = AccountId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """End a friendship, withdraw your request or decline theirs: ``{"status": "none"}``."""

    await change(svc, authorization, account_id, Friends.drop)
    return {"status": "none"}


@router.post("/api/blocks/{account_id}")
async def block(
    svc: AppServicesDep, account_id: str = AccountId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """Block ``account_id``: no friendship or request between you, and their invitations and table
    chat no longer reach you (they are not told). ``{"blocked": true}``."""

    await change(svc, authorization, account_id, Friends.block)
    return {"blocked": True}


@router.delete("/api/blocks/{account_id}")
async def unblock(
    svc: AppServicesDep, account_id: str = AccountId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """Stop blocking ``account_id``: ``{"blocked": false}`` (a friendship is not restored)."""

    await change(svc, authorization, account_id, Friends.unblock)
    return {"blocked": False}


# ---- helpers: the store's in the thread pool, the directory's on the event loop -------------------


def signed_in(svc: AppServices, authorization: str | None) -> AccountRow:
    """The asker's account (reads the store: in the thread pool); 401 without a live session."""
    account = svc.account_of(authorization)
    if account is None:
        raise fail(401, "unauthorized", "missing, unknown or expired token")
    return account


async def change(
    svc: AppServices, authorization: str | None, account_id: str, act: Callable[[Friends, str, str], None]
) -> None:
    """Do ``act(friends, me, account_id)`` in the thread pool, then refresh both accounts' friends
    in the directory on the event loop."""

    def write(authorization: str | None) -> dict[str, Social]:
        me = other_than(svc, authorization, account_id)
        act(friends_of(svc.store), me.id, account_id)
        return socials(svc, me.id, account_id)

    keep(svc, await run_in_threadpool(write, authorization))


def other_than(svc: AppServices, authorization: str | None, account_id: str) -> AccountRow:
    """The asker's account, when ``account_id`` is another account that exists (in the thread pool)."""
    me = signed_in(svc, authorization)
    if account_id == me.id:
        raise fail(422, "not_yourself", "that is your own account")
    if svc.store.account(account_id) is None:
        raise fail(404, "no_player", f"no player {account_id!r}")
    return me


def socials(svc: AppServices, *account_ids: str) -> dict[str, Social]:
    """The friends and blocks of ``account_ids`` after a change (in the thread pool)."""
    friends = friends_of(svc.store)
    return {account_id: friends.social(account_id) for account_id in account_ids}


def keep(svc: AppServices, changed: dict[str, Social]) -> None:
    """Tell the directory (on the event loop) who is friends with and blocks whom now."""
    for account_id, social in changed.items():
        svc.hub.directory.keep_social(account_id, social)
    if svc.node is not None:  # the other nodes of a cluster keep blocks for their tables' chat
        svc.node.features.social_changed(list(changed))


def presence(svc: AppServices, friend: str, viewer: str) -> dict[str, Any]:
    """Whether ``friend`` is connected here and where they hold a seat, as ``viewer`` may see it
    (on the event loop). ``where``: ``{"table", "name", "status", "seat"}``, ``{"private": true}`` for
    a private table ``viewer`` may not see, or null."""
    directory = svc.hub.directory
    online = bool(directory.connections(friend))
    seats = sorted(directory.seats_of(friend), key=lambda s: s["status"] != "playing")  # playing first
    where: dict[str, Any] | None = None
    if seats:
        seat = seats[0]
        table = directory.find(seat["table"])
        if table is not None and may_see(facts_of(table), viewer):
            where = {**seat, "private": table.state.settings.private}
        else:
            where = {"private": True}
    return {"online": online, "where": where}
