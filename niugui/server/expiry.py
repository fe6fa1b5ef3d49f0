"""Tables do not live in memory for ever: a finished table is dropped ``finished_table_seconds`` after
its last event (its games, records and ledger stay in the store), and a table not in play that nobody
watches or sits at (online) for ``idle_table_seconds`` is closed — ``finished``, so it is neither
listed nor rebuilt at the next start.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Protocol

from . import logs
from .config import Limits


class Tables(Protocol):
    """What expiry needs of the hub."""

    def activity(self) -> Iterator[tuple[str, str, float, int]]: ...

    def close_abandoned(self, table_id: str) -> None: ...

    def forget(self, table_id: str) -> None: ...


def sweep(tables: Tables, limits: Limits, now: float | None = None) -> tuple[int, int]:
    """One pass: (tables closed, tables dropped from memory)."""
    now = time.time() if now is None else now
    closed = dropped = 0
    for table_id, status, last_event, watchers in list(tables.activity()):
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


def period(limits: Limits) -> float:
    """How often to sweep: often enough that no table outstays its time by more than a quarter."""
    spans = [s for s in (limits.finished_table_seconds, limits.idle_table_seconds) if s > 0]
    return max(0.05, min([30.0, *(s / 4 for s in spans)]))


async def run(tables: Tables, limits: Limits) -> None:
    """Sweep for ever (cancelled at shutdown)."""
    while True:
        await asyncio.sleep(period(limits))
        try:
            sweep(tables, limits)
        except Exception:
            logs.exception("table expiry failed; trying again later")
