"""The daily challenge (每日复式, issue 30): one public duplicate event a day, from midnight to
midnight server time, ``daily_boards`` boards against ``daily_bot_level`` bots (``niugui serve
--community daily_boards=…``). Each server makes it at its start and just after each midnight
(:func:`keep_daily`), and ``GET /api/events`` or ``/api/events/daily`` make it when it is not made
yet; it is made once however many nodes try: the event's ``daily_date`` is unique in the database, so
a second node's insert fails and it reads the first's.

>>> from datetime import datetime
>>> day = day_of(datetime(2026, 12, 5, 13, 30).timestamp())
>>> day.date, datetime.fromtimestamp(day.starts_at).hour, day.ends_at - day.starts_at
('2026-12-05', 0, 86400.0)
>>> day_of(day.starts_at - 1).date
'2026-12-04'
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from .. import logs
from ..config import Community
from ..creation import short_id
from ..protocol import EventCreate
from .base import EventKind
from .kinds import event_kinds
from .store import EventRow, EventStore

DAILY_OWNER = "server"
"""The owner of the daily events: the server itself, no account."""


@dataclass(frozen=True)
class Day:
    """A day in server time: its date and its midnights."""

    date: str
    starts_at: float
    ends_at: float


def day_of(now: float) -> Day:
    """The day (server time) that ``now`` falls on."""
    midnight = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    following = (midnight + timedelta(days=1, hours=2)).replace(hour=0)  # a DST day is 23 or 25 hours
    return Day(midnight.date().isoformat(), midnight.timestamp(), following.timestamp())


def daily(store: EventStore, kind: EventKind, community: Community, now: float) -> EventRow:
    """Today's daily challenge, made now if nobody has made it yet (off the event loop)."""
    day = day_of(now)
    found = store.daily(day.date)
    if found is not None:
        return found
    asked = {"kind": "duplicate", "name": f"每日复式 {day.date}", "boards": community.daily_boards}
    body = EventCreate.model_validate({**asked, "bot_level": community.daily_bot_level})
    event = EventRow(
        short_id(8),
        "duplicate",
        body.name,
        None,
        DAILY_OWNER,
        True,
        kind.settings(body, community),
        day.starts_at,
        day.ends_at,
        now,
        day.date,
    )
    if store.create(event, kind.created):
        return event
    made = store.daily(day.date)  # another node made it meanwhile
    assert made is not None
    return made


def yesterday(store: EventStore, now: float) -> EventRow | None:
    """Yesterday's daily challenge, if it was made."""
    return store.daily(day_of(day_of(now).starts_at - 1).date)


async def keep_daily(store: EventStore, community: Community, now: Callable[[], float] = time.time) -> None:
    """Make today's challenge now and again just after each midnight (server time), in a thread;
    cancelled at shutdown. A failure is logged and tried again a minute later."""
    kind = event_kinds(community)["duplicate"]
    while True:
        try:
            made = await asyncio.to_thread(daily, store, kind, community, now())
            wait = max(1.0, made.ends_at - now() + 1.0)
        except Exception:
            logs.exception("the daily challenge could not be made; trying again in a minute")
            wait = 60.0
        await asyncio.sleep(wait)
