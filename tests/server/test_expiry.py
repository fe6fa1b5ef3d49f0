"""Table expiry (niugui/server/expiry.py) alone, without a server: the sweep's rule on fake tables."""

from __future__ import annotations

from collections.abc import Iterator

from niugui.server.config import Limits
from niugui.server.expiry import sweep


class FakeTables:
    def __init__(self, rows: list[tuple[str, str, float, int]]) -> None:
        self.rows = rows
        self.closed: list[str] = []
        self.forgotten: list[str] = []

    def activity(self) -> Iterator[tuple[str, str, float, int]]:
        yield from self.rows

    def close_abandoned(self, table_id: str) -> None:
        self.closed.append(table_id)

    def forget(self, table_id: str) -> None:
        self.forgotten.append(table_id)


def test_a_table_whose_first_event_is_not_stored_yet_is_never_idle() -> None:
    """A table is registered before its first event is stored (its time is still 0): a sweep in that
    window must not take it for one idle since 1970 and close it under its creator."""
    limits = Limits()
    now = 1_000_000.0
    tables = FakeTables([
        ("new", "waiting", 0.0, 0),
        ("idle", "waiting", now - limits.idle_table_seconds - 1, 0),
        ("watched", "waiting", now - limits.idle_table_seconds - 1, 1),
        ("done", "finished", now - limits.finished_table_seconds - 1, 0),
        ("fresh", "waiting", now - 1, 0),
    ])
    assert sweep(tables, limits, now) == (1, 1)
    assert tables.closed == ["idle"] and tables.forgotten == ["done"]
