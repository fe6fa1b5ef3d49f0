"""Tables and their records: the lobby a page at a time, the tables where you hold a seat, a table's
ledger, a finished game's record — a private table's for those the visibility rule lets see it
(:mod:`niugui.server.visibility`)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter, Header, Query
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from .. import replays
from ..clubs_store import ClubStore
from ..directory import facts_of
from ..events.store import EventStore
from ..events.visibility import may_see_board
from ..http_errors import fail
from ..lobby import LobbyQuery
from ..protocol import BotLevel, LobbyStatus
from ..services import AppServices, AppServicesDep
from ..store import GameRow
from ..visibility import TableFacts, may_see

router = APIRouter()


@router.get("/api/me/seats")
async def my_seats(svc: AppServicesDep, authorization: str | None = Header(None)) -> dict[str, Any]:
    """The tables where you hold a seat now (as ``welcome.seats``, with each table's name and
    status), so that the lobby offers a way back to every one of them."""
    account = await run_in_threadpool(svc.account_of, authorization)
    if account is None:
        raise fail(401, "unauthorized", "missing, unknown or expired token")
    if svc.node is not None:  # every node's tables (issue 32)
        return {"seats": await svc.node.features.seats_of(account.id)}
    return {"seats": svc.hub.seats_of(account.id)}


@router.get("/api/tables")
async def tables(
    svc: AppServicesDep,
    offset: int = Query(0, ge=0, le=1_000_000),
    limit: int = Query(50, ge=1, le=100),
    status: LobbyStatus | None = None,
    free_seats: int | None = Query(None, ge=0, le=4),
    bot_level: BotLevel | None = None,
) -> Response:
    """The lobby, a page at a time (as ``list_tables``); shared by every asker for a second."""
    page = svc.lobby.page(LobbyQuery(offset, limit, status, free_seats, bot_level))
    return Response(page, media_type="application/json")


def stored_facts(row: dict[str, Any], players: Iterable[str], club: str | None = None) -> TableFacts:
    """What the visibility rule needs of a stored table (``players``: whoever sits or sat there;
    ``club``: the club whose room it is, :meth:`~niugui.server.clubs_store.ClubStore.room_facts`)."""
    return TableFacts(row["id"], row["creator"], row["code"], frozenset(players), club)


def seated_now(svc: AppServices, table_id: str) -> frozenset[str]:
    """The accounts seated at a table in memory now. Reads the hub: call it on the event loop."""
    table = svc.hub.tables.get(table_id)
    return frozenset() if table is None else facts_of(table).players


@router.get("/api/tables/{table_id}/ledger")
async def table_ledger(
    svc: AppServicesDep,
    table_id: str = PathParam(max_length=32),
    code: str | None = Query(None, max_length=16),
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """A table's ledger; a private table's only for its creator, players and holders of its code."""
    seated = seated_now(svc, table_id)

    def read() -> dict[str, Any]:
        row = svc.store.table_row(table_id)
        entries = [] if row is None else svc.store.table_ledger(table_id)
        players = seated | {e["account_id"] for e in entries if e["account_id"]}
        if row is None or not may_see_stored(svc, row, players, authorization, code):
            raise fail(404, "no_table", f"no table {table_id!r}")
        return {"entries": entries}

    return await run_in_threadpool(read)


def may_see_game(svc: AppServices, game: GameRow, authorization: str | None, code: str | None) -> bool:
    """A stored game: anyone's at a public table; a private table's only for those who played it, its
    creator and holders of its code (:func:`niugui.server.visibility.may_see`). Reads the store only."""
    row = svc.store.table_row(game.table_id)
    players = {p["id"] for p in game.meta.get("players", []) if isinstance(p, dict) and p.get("id")}
    return row is not None and may_see_stored(svc, row, players, authorization, code)


def may_see_stored(
    svc: AppServices, row: dict[str, Any], players: Iterable[str], authorization: str | None, code: str | None
) -> bool:
    """The visibility rule for a stored table (its ledger, records, replays, session): ``players``
    those who sit or sat there; a club's room also for its club's members. Reads the store only."""
    viewer = svc.account_id_of(authorization)
    if not may_see_board(EventStore(svc.store.engine), row["id"], row["creator"], viewer, time.time()):
        return False  # a duplicate board's table, before its entrant may know it (issue 30)
    club, clubs = ClubStore(svc.store.engine).room_facts(row["id"], viewer)
    return may_see(stored_facts(row, players, club), viewer, code, clubs=clubs)


@router.get("/api/games/{game_id}/record")
def record(
    game_id: int,
    svc: AppServicesDep,
    code: str | None = Query(None, max_length=16),
    authorization: str | None = Header(None),
) -> JSONResponse:
    """A finished game's record; of a private table only for its players and holders of the code."""
    game = svc.store.game(game_id) if game_id in replays.GAME_IDS else None  # beyond: no game
    if game is None or not may_see_game(svc, game, authorization, code):
        raise fail(404, "no_game", f"no game {game_id}")
    if game.record is None:
        raise fail(404, "game_in_progress", f"game {game_id} is still in progress")
    return JSONResponse(
        game.record, headers={"Content-Disposition": f'attachment; filename="niugui-game-{game_id}.json"'}
    )
