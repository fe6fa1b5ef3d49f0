"""Events (issue 30): duplicate events (复式赛), the daily challenge (每日复式) and, by their kind's
entry in the registry (:mod:`niugui.server.events.kinds`), Swiss tournaments.

A club's event does not exist to anyone not a member: every route answers them ``404 no_event``, as
for an event that does not exist. The store is read and written in the thread pool. What an event
shows a viewer is its kind's (``view``): nothing of a board before the viewer may know it.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Header, Query
from fastapi import Path as PathParam
from starlette.concurrency import run_in_threadpool

from .. import logs
from ..clubs_store import ClubStore
from ..creation import short_id
from ..events.base import EventKind, EventRefused
from ..events.daily import daily, yesterday
from ..events.kinds import event_kinds
from ..events.store import EventRow, EventStore
from ..http_errors import fail
from ..protocol import EventCreate
from ..services import AppServices, AppServicesDep
from ..store import AccountRow

router = APIRouter()

EventId = PathParam(max_length=16)
DEFAULT_DAYS = 1.0
"""An event without ``ends_at`` ends this many days after its start ..."""
MAX_DAYS = 31.0
"""... and none lasts longer than this."""
RECENT_SECONDS = 7 * 86400.0
"""``GET /api/events`` lists the events open now and those that ended within this time."""


def kinds_of(svc: AppServices) -> dict[str, EventKind]:
    return event_kinds(svc.config.community)


def refused(error: EventRefused) -> Exception:
    return fail(error.status, error.code, error.message)


def may_see(svc: AppServices, event: EventRow, account: AccountRow | None) -> bool:
    """A club's event only for its members (reads the store: off the event loop)."""
    if event.club is None:
        return True
    role = None if account is None else ClubStore(svc.store.engine).role(event.club, account.id)
    return role is not None and role != "pending"


def shown(svc: AppServices, event: EventRow, account: AccountRow | None, now: float) -> dict[str, Any]:
    """``{"event": …, **the kind's view}`` for ``account`` (off the event loop)."""
    viewer = None if account is None else account.id
    view = kinds_of(svc)[event.kind].view(EventStore(svc.store.engine), event, viewer, now)
    return {"event": event.public(now), **view}


def the_daily(svc: AppServices, now: float) -> EventRow:
    kind = kinds_of(svc)["duplicate"]
    return daily(EventStore(svc.store.engine), kind, svc.config.community, now)


@router.post("/api/events")
async def create_event(
    body: EventCreate, svc: AppServicesDep, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """A new event of a registered account: its club's (members only) or an unlisted link (anyone
    given its id plays). Answer: ``{"event": {...}}``."""
    kinds = kinds_of(svc)
    name = body.name.strip()
    if not name:
        raise fail(422, "invalid_input", "name: must not be blank")
    kind = kinds.get(body.kind)
    if kind is None:
        raise fail(422, "invalid_input", f"kind: {body.kind!r} events are not available on this server yet")
    now = time.time()
    starts = body.starts_at if body.starts_at is not None else now
    ends = body.ends_at if body.ends_at is not None else starts + DEFAULT_DAYS * 86400
    if not starts < ends <= starts + MAX_DAYS * 86400 or ends <= now:
        raise fail(
            422, "invalid_input", f"ends_at: after starts_at and now, within {MAX_DAYS:g} days of the start"
        )
    try:
        settings = kind.settings(body, svc.config.community)
    except EventRefused as error:
        raise refused(error) from None

    def create() -> EventRow:
        account = svc.account_of(authorization)
        if account is None:
            raise fail(401, "unauthorized", "missing, unknown or expired token")
        if account.username is None or account.bot:
            raise fail(403, "registered_only", "only a registered account makes an event; register first")
        if body.club is not None:
            role = ClubStore(svc.store.engine).role(body.club, account.id)
            if role is None or role == "pending":
                raise fail(404, "no_club", f"no club {body.club!r}")
        event = EventRow(
            short_id(8), kind.name, name, body.club, account.id, False, settings, starts, ends, now
        )
        EventStore(svc.store.engine).create(event, kind.created)
        return event

    event = await run_in_threadpool(create)
    logs.info("event created", event=event.id, kind=event.kind, club=event.club)
    return {"event": event.public(now)}


@router.get("/api/events")
def list_events(
    svc: AppServicesDep,
    offset: int = Query(0, ge=0, le=1_000_000),
    limit: int = Query(20, ge=1, le=100),
    authorization: str | None = Header(None),
) -> dict[str, Any]:
    """The events open now and those ended within a week that you may see listed — the daily
    challenges, your clubs' events and your own — latest to end first, a page at a time:
    ``{"events": [...], "total", "offset", "limit"}``."""
    now = time.time()
    the_daily(svc, now)
    account = svc.account_of(authorization)
    clubs: frozenset[str] = frozenset()
    if account is not None:
        clubs = frozenset(
            c["id"] for c in ClubStore(svc.store.engine).clubs_of(account.id) if c["role"] != "pending"
        )
    rows, total = EventStore(svc.store.engine).listing(
        now, clubs, None if account is None else account.id, offset, limit, RECENT_SECONDS
    )
    return {"events": [r.public(now) for r in rows], "total": total, "offset": offset, "limit": limit}


@router.get("/api/events/daily")
def daily_event(svc: AppServicesDep, authorization: str | None = Header(None)) -> dict[str, Any]:
    """Today's challenge as ``GET /api/events/{id}`` shows it (with ``me``: your progress and rank),
    and yesterday's final standings: ``{"today": {...}, "yesterday": {...} | null}``."""
    now = time.time()
    today = the_daily(svc, now)
    account = svc.account_of(authorization)
    before = yesterday(EventStore(svc.store.engine), now)
    return {
        "today": shown(svc, today, account, now),
        "yesterday": None if before is None else shown(svc, before, account, now),
    }


@router.get("/api/events/{event_id}")
def event_page(
    svc: AppServicesDep, event_id: str = EventId, authorization: str | None = Header(None)
) -> dict[str, Any]:
    """An event: ``{"event", "standings": [{"rank", "account_id", "nickname", "boards", "matchpoints",
    "maximum", "percent"}], "boards": [...], "me", "entrants"}`` — a board's results, seat and
    commitment's reveal only once you finished it or the event is over."""
    now = time.time()
    event = EventStore(svc.store.engine).event(event_id)
    account = svc.account_of(authorization)
    if event is None or event.kind not in kinds_of(svc) or not may_see(svc, event, account):
        raise fail(404, "no_event", f"no event {event_id!r}")
    return shown(svc, event, account, now)
