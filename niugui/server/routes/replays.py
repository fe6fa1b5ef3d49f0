"""Replays computed by the engine (:mod:`niugui.server.replays`) over HTTP:

- ``POST /api/replay`` with a record (RECORD.md) as the body: anyone may replay any record;
- ``GET /api/games/{game_id}/replay``: a finished game of this server, under the same rule as
  ``GET /api/games/{game_id}/record`` (:func:`~niugui.server.routes.tables.may_see_game`; 404 while the
  game is in progress).
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse

from ..protocol import Replay, ReplayError
from ..replays import GAME_IDS, MAX_RECORD_BYTES, ReplayProblem, parse_record, replay_of_record
from ..services import AppServicesDep
from .tables import may_see_game

router = APIRouter()


@router.post("/api/replay", response_model=Replay, responses={400: {"model": ReplayError}})
async def replay_record(request: Request) -> JSONResponse:
    """Every step of the record in the body."""
    try:
        record = parse_record(await read_body(request, MAX_RECORD_BYTES))
        # Off the event loop: the tables' broadcasts do not wait for a replay.
        return JSONResponse(await asyncio.to_thread(replay_of_record, record))
    except ReplayProblem as problem:
        return problem.response()


@router.get("/api/games/{game_id}/replay", response_model=Replay)
def replay_game(
    game_id: int,
    svc: AppServicesDep,
    code: str | None = Query(None, max_length=16),
    authorization: str | None = Header(None),
) -> JSONResponse:
    """Every step of a finished game of this server, its bot accounts labelled."""
    store = svc.store
    game = store.game(game_id) if game_id in GAME_IDS else None
    if game is not None and not may_see_game(svc, game, authorization, code):
        game = None  # a private table's game, to an outsider: as if there were none
    try:
        if game is None:
            raise ReplayProblem("not_found", f"no game {game_id}")
        if game.record is None:
            raise ReplayProblem("in_progress", f"game {game_id} is still in progress")
        replay = replay_of_record(game.record)
        players = game.meta.get("players") or []
        ids = [p["id"] for p in players if isinstance(p, dict) and isinstance(p.get("id"), str)]
        bots = store.bot_accounts(ids)
        for seat, player in zip(replay["seats"], players, strict=False):
            if isinstance(player, dict) and player.get("id") in bots:
                seat["bot_account"] = True  # labelled as a bot, as at the table
        return JSONResponse(replay)
    except ReplayProblem as problem:
        return problem.response()


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused (``too_large``) past ``limit`` bytes, declared or sent."""
    too_large = ReplayProblem("too_large", f"a record is limited to {limit} bytes", limit=limit)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large
    return bytes(body)
