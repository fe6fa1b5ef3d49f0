"""The community's pages: the leaderboard, a player's profile and a player's games."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import Response

from .. import collusion, profiles
from ..boards import BOARD_ROWS, BoardBusy
from ..fairuse import READ_WAIT
from ..http_errors import fail, refuse
from ..services import AppServicesDep
from .accounts import host

router = APIRouter()


@router.get("/api/leaderboard")
def leaderboard(
    svc: AppServicesDep,
    request: Request,
    limit: int = Query(50, ge=1, le=500),
    by: Literal["points", "rating"] = "points",
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """Players by the points of their rated games, or by rating (at least ``rated_min_games`` rated
    games); on both, accounts whose rated games come from a closed circle are flagged and unranked.
    Computed once while no rated game finishes (``niugui/server/boards.py``); an expensive read."""
    store, community = svc.store, svc.config.community
    least = community.rated_min_games
    svc.fair.charge_read(host(request), reader(svc, authorization))

    def compute() -> list[dict[str, Any]]:  # only a board computed again takes a place to read
        with svc.fair.reading():
            top = BOARD_ROWS
            board = store.rating_leaderboard(top, least) if by == "rating" else store.leaderboard(top)
            return collusion.mark(store, board, community)

    try:  # one board per (by, least) whatever the limit asked; a wait as long as for a place to read
        rows = svc.boards.get((by, least), compute, limit, READ_WAIT)
    except BoardBusy:
        raise refuse(svc.metrics, 503, "busy", "the server is busy; try again in a moment", 1) from None
    return {"by": by, "players": rows, **({"min_games": least} if by == "rating" else {})}


@router.get("/api/players/{account_id}/profile")
def player_profile(
    svc: AppServicesDep,
    request: Request,
    account_id: str = PathParam(max_length=32),
    authorization: str | None = Header(None),
) -> Response:
    """A player's profile (``Profile``); recent games at private tables only for their players."""
    viewer = svc.account_of(authorization)
    with svc.fair.expensive_read(host(request), None if viewer is None else viewer.id):
        found = profiles.profile(
            svc.store, account_id, None if viewer is None else viewer.id, svc.config.community.escape_window
        )
    if found is None:
        raise fail(404, "no_player", f"no player {account_id!r}")
    return Response(found.model_dump_json(), media_type="application/json")


@router.get("/api/players/{account_id}/games")
def history(
    svc: AppServicesDep,
    request: Request,
    account_id: str = PathParam(max_length=32),
    limit: int = Query(50, ge=1, le=500),
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """A player's games; games at private tables only for those who played at that table."""
    store = svc.store
    viewer = svc.account_of(authorization)
    with svc.fair.expensive_read(host(request), None if viewer is None else viewer.id):
        player = store.account(account_id)
        if player is None:
            raise fail(404, "no_player", f"no player {account_id!r}")
        games = store.history(account_id, limit, viewer=None if viewer is None else viewer.id)
        names = store.table_names(g["table"] for g in games)
    for g in games:
        g["table_name"] = names.get(g["table"], "")
    return {"games": games, **({"bot": True} if player.bot else {})}  # a bot account's games


def reader(svc: AppServicesDep, authorization: str | None) -> str | None:
    """The signed-in asker's account id (their reads are counted per account), or None."""
    account = svc.account_of(authorization) if authorization else None
    return None if account is None else account.id
