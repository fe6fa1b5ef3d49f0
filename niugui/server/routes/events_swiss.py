"""Swiss tournaments (issue 30): registration (and taking it back) and the owner's start. The rest
is every event's (:mod:`niugui.server.routes.events`): ``POST /api/events`` with ``"kind": "swiss"``, its page
``GET /api/events/{id}``, and ``play_event`` back to one's table of the round.

A club's Swiss does not exist to anyone not a member: ``404 no_event``, as for no event at all.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import APIRouter, Header
from starlette.concurrency import run_in_threadpool

from .. import logs
from ..events.store import EventRow, EventStore
from ..events.swiss_store import SwissStore
from ..http_errors import fail
from ..services import AppServices, AppServicesDep
from ..store import AccountRow
from .events import EventId, may_see

router = APIRouter()


def swiss_event(svc: AppServices, event_id: str, authorization: str | None) -> tuple[EventRow, AccountRow]:
    """The Swiss ``event_id`` and the asker's account (off the event loop); 401 without a session,
    404 ``no_event`` for an event that is not a Swiss or that the asker may not see."""
    account = svc.account_of(authorization)
    if account is None:
        raise fail(401, "unauthorized", "missing, unknown or expired token")
    event = EventStore(svc.store.engine).event(event_id)
    if event is None or event.kind != "swiss" or not may_see(svc, event, account):
        raise fail(404, "no_event", f"no event {event_id!r}")
    return event, account


@router.post("/api/events/{event_id}/join")
async def join_swiss(
    svc: AppServicesDep, event_id: str = EventId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """Register for a Swiss before its start (a bot account may not): ``{"registered": true,
    "entrants": n}`` (again: the same answer). ``409 event_started`` once it has started."""

    def join() -> dict[str, Any]:
        event, account = swiss_event(svc, event_id, authorization)
        if account.bot:
            raise fail(403, "event_bot", "bot accounts do not enter events")
        swiss = SwissStore(svc.store.engine)
        entered = swiss.register(event.id, account.id, account.nickname, time.time())
        if entered is None:
            raise fail(409, "event_started", "the tournament has started; registration is closed")
        return {"registered": True, "entrants": len(swiss.entrants(event.id))}

    return await run_in_threadpool(join)


@router.delete("/api/events/{event_id}/join")
async def leave_swiss(
    svc: AppServicesDep, event_id: str = EventId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """Take back your registration before the start: ``{"registered": false, "entrants": n}`` (also
    when you were not registered). ``409 event_started`` once it has started."""

    def leave() -> dict[str, Any]:
        event, account = swiss_event(svc, event_id, authorization)
        swiss = SwissStore(svc.store.engine)
        if swiss.unregister(event.id, account.id) is None:
            raise fail(409, "event_started", "the tournament has started; registration is closed")
        return {"registered": False, "entrants": len(swiss.entrants(event.id))}

    return await run_in_threadpool(leave)


@router.post("/api/events/{event_id}/start")
async def start_swiss(
    svc: AppServicesDep, event_id: str = EventId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """The owner starts their Swiss now (registration closes, round 1 is paired and seated):
    ``{"started": true}``. ``403 event_owner`` to anyone else; ``409 event_started`` once started."""
    event, account = await run_in_threadpool(swiss_event, svc, event_id, authorization)
    if account.id != event.owner:
        raise fail(403, "event_owner", "only the tournament's owner starts it")
    done: asyncio.Future[bool | BaseException] = asyncio.get_running_loop().create_future()
    svc.hub.swiss.start(event.id, done.set_result)
    outcome = await done
    if isinstance(outcome, BaseException):
        logs.failure("swiss: the start failed", outcome, event=event.id)
        raise outcome
    if not outcome:
        raise fail(409, "event_started", "the tournament has started already")
    return {"started": True}
