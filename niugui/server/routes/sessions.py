"""Sessions (issue 29): a table's settlement, its result card, and the sessions you played — each
visible to whoever may see the table's ledger (:func:`niugui.server.visibility.may_see`), and to
anyone else answered exactly as a table that does not exist (404)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Header, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from .. import card
from ..clubs_store import ClubStore
from ..http_errors import fail
from ..services import AppServices, AppServicesDep
from ..sessions import SessionStore, TableSession
from .tables import may_see_stored, seated_now

router = APIRouter()


def visible_session(
    svc: AppServices, table_id: str, seated: frozenset[str], authorization: str | None, code: str | None
) -> TableSession:
    """The table's session when the asker may see its ledger, else 404 (reads the store)."""
    row = svc.store.table_row(table_id)
    session = None if row is None else SessionStore(svc.store.engine).session(table_id)
    if row is None or session is None:
        raise fail(404, "no_table", f"no table {table_id!r}")
    players = seated | {p.account_id for p in session.players if p.account_id}
    if not may_see_stored(svc, row, players, authorization, code):
        raise fail(404, "no_table", f"no table {table_id!r}")
    return session


@router.get("/api/tables/{table_id}/session")
async def table_session(
    svc: AppServicesDep,
    table_id: str = PathParam(max_length=32),
    code: str | None = Query(None, max_length=16),
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """The table's session (its run of ``games``) and its settlement: each player's total, games won,
    上游 count, best game and place; ``winners`` the evening's winner(s) by seat. Finished games only."""
    seated = seated_now(svc, table_id)
    session = await run_in_threadpool(visible_session, svc, table_id, seated, authorization, code)
    return session.as_json()


@router.get("/api/tables/{table_id}/session.png", response_class=Response)
async def table_session_card(
    request: Request,
    svc: AppServicesDep,
    table_id: str = PathParam(max_length=32),
    code: str | None = Query(None, max_length=16),
    authorization: str | None = Header(None),
) -> Response:
    """The session's result card: a PNG about 1080 px wide, in Chinese (:mod:`niugui.server.card`)."""
    seated = seated_now(svc, table_id)
    link = f"{request.url.netloc}/#/table/{table_id}"

    def draw() -> bytes:
        session = visible_session(svc, table_id, seated, authorization, code)
        clubs = ClubStore(svc.store.engine)
        club_id = clubs.club_of_table(table_id)
        club = None if club_id is None else clubs.club(club_id)
        return card.render(card.card_lines(session, "" if club is None else club.name, link))

    png = await run_in_threadpool(draw)
    return Response(
        png,
        media_type="image/png",
        headers={
            "Content-Disposition": f'inline; filename="niugui-{table_id}.png"',
            "Cache-Control": "no-store",
        },
    )


@router.get("/api/me/sessions")
async def my_sessions(svc: AppServicesDep, authorization: str | None = Header(None)) -> dict[str, Any]:
    """Your sessions (the tables where you played), the most recent first, each with its settlement."""

    def read() -> dict[str, Any]:
        account = svc.account_of(authorization)
        if account is None:
            raise fail(401, "unauthorized", "missing, unknown or expired token")
        store = SessionStore(svc.store.engine)
        found = (store.session(table_id) for table_id in store.tables_of(account.id))
        return {"sessions": [s.as_json() for s in found if s is not None]}

    return await run_in_threadpool(read)
