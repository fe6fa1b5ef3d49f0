"""Tables do not live in memory for ever: a finished table is dropped ``finished_table_seconds`` after
its last event (its games, records and ledger stay in the store), and a table not in play that nobody
watches or sits at (online) for ``idle_table_seconds`` is closed — ``finished``, so it is neither
listed nor rebuilt at the next start. Sessions unused for ``session_days`` are deleted from the store
(hourly: one refused at sign-in is refused anyway, this keeps the table from growing for ever).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Protocol

from . import logs
from .config import Limits


class Sessions(Protocol):
    """What expiry needs of the store."""

    def purge_sessions(self, max_age: float) -> int: ...


class Tables(Protocol):
    """What expiry needs of the hub: its tables, and its store's sessions."""

    @property
    def store(self) -> Sessions: ...

    def activity(self) -> Iterator[tuple[str, str, float, int]]: ...

    def close_abandoned(self, table_id: str) -> None: ...

    def forget(self, table_id: str) -> None: ...


def sweep(tables: Tables, limits: Limits, now: float | None = None) -> tuple[int, int]:
    """One pass: (tables closed, tables dropped from memory)."""
    now = time.time() if now is None else now
    closed = dropped = 0
    for table_id, status, last_event, watchers in list(tables.activity()):
        if last_event <= 0:  # no event stored yet: a table being created right now is not idle
            continue
        idle = now - last_event
        if status == "finished" and limits.finished_table_seconds and idle >= limits.finished_table_seconds:
            tables.forget(table_id)
            dropped += 1
        elif (
            status in ("waiting", "between")
            and watchers == 0
            and limits.idle_table_seconds
            and idle >= limits.idle_table_seconds
        ):
            try:
                tables.close_abandoned(table_id)
            except Exception:  # a failed write: the table stays as it was and is tried again later
                logs.exception("could not close an abandoned table", table=table_id)
                continue
            closed += 1
    if closed or dropped:
        logs.info("tables expired", closed=closed, dropped=dropped)
    return closed, dropped


SESSIONS_EVERY = 3600.0
"""Seconds between two purges of expired sessions (the first comes with the first sweep)."""


def purge_sessions(sessions: Sessions, limits: Limits) -> int:
    """Delete the sessions unused for ``limits.session_days`` (none when it is 0: sessions never
    expire); how many.

    >>> class Store:
    ...     def purge_sessions(self, max_age: float) -> int:
    ...         print(f"older than {max_age:.0f} s")
    ...         return 0
    >>> purge_sessions(Store(), Limits(session_days=1.0))
    older than 86400 s
    0
    """
    if not limits.session_days:
        return 0
    purged = sessions.purge_sessions(limits.session_days * 86400)
    if purged:
        logs.info("sessions expired", purged=purged)
    return purged


def period(limits: Limits) -> float:
    """How often to sweep: often enough that no table outstays its time by more than a quarter."""
    spans = [s for s in (limits.finished_table_seconds, limits.idle_table_seconds) if s > 0]
    return max(0.05, min([30.0, *(s / 4 for s in spans)]))


async def run(tables: Tables, limits: Limits) -> None:
    """Sweep for ever, and purge expired sessions every :data:`SESSIONS_EVERY` seconds (in a thread:
    it is a database write); cancelled at shutdown."""
    purged_at: float | None = None
    while True:
        await asyncio.sleep(period(limits))
        try:
            sweep(tables, limits)
        except Exception:
            logs.exception("table expiry failed; trying again later")
        if purged_at is None or time.monotonic() - purged_at >= SESSIONS_EVERY:
            purged_at = time.monotonic()
            try:
                await asyncio.to_thread(purge_sessions, tables.store, limits)
            except Exception:
                logs.exception("session expiry failed; trying again later")
